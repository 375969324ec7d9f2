/**
 * The documentation's links hold: every relative link and every `#anchor` in README.md, ARCHITECTURE.md,
 * the SDK's README and every page under docs/ resolves (the file exists; the anchor is a heading of that
 * file, named by GitHub's rules), and the README links every page of docs/. Read from the files alone:
 * links with a scheme (https:, mailto:) are left alone, nothing goes over the network.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** GitHub's anchor for a heading's text: markup dropped, lower case, punctuation but `-` and `_` dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

interface Link {
  line: number;
  target: string;
}

/** A Markdown text's anchors (its headings' slugs, a repeated one numbered as GitHub numbers it) and links, code left out. */
function readMarkdown(text: string): { anchors: Set<string>; links: Link[] } {
  const anchors = new Set<string>();
  const links: Link[] = [];
  const seen = new Map<string, number>();
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opening) {
      const marker = opening[1]!;
      if (fence === null) fence = marker;
      else if (marker.startsWith(fence)) fence = null;
      return;
    }
    if (fence !== null) return;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const html of raw.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(html[1]!);
    const line = raw.replace(/`[^`]*`/g, '');
    for (const link of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: index + 1, target: link[1]! });
    const definition = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) links.push({ line: index + 1, target: definition[1]! });
  });
  return { anchors, links };
}

/** Why a link from `source` to `target` does not resolve, or null when it does. */
function fault(root: string, source: string, target: string): string | null {
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const resolved = path === '' ? source : path.startsWith('/') ? join(root, path) : resolve(dirname(source), path);
  if (!resolved.startsWith(root)) return 'outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === null) return null;
  if (!resolved.endsWith('.md')) return /^L\d+(-L\d+)?$/.test(anchor) ? null : 'an anchor in a file that is not Markdown';
  if (readMarkdown(readFileSync(resolved, 'utf8')).anchors.has(anchor)) return null;
  return `no heading "${anchor}" in ${relative(root, resolved)}`;
}

/** The links of one Markdown file (a path under `root`) that do not resolve, each as "line N: target (why)". */
function brokenLinks(root: string, file: string): string[] {
  const source = join(root, file);
  return readMarkdown(readFileSync(source, 'utf8'))
    .links.filter(({ target }) => !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target))
    .flatMap(({ line, target }) => {
      const why = fault(root, source, target);
      return why ? [`line ${line}: ${target} (${why})`] : [];
    });
}

const markdownUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdownUnder(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  );
const PAGES = markdownUnder('docs');
const FILES = ['README.md', 'ARCHITECTURE.md', 'packages/client/README.md', ...PAGES];

describe('links in the documentation', () => {
  it.each(FILES)('%s: every relative link and anchor resolves', (file) => {
    expect(brokenLinks(ROOT, file)).toEqual([]);
  });

  it('are many: the reader finds them (a reader that found none would pass everything)', () => {
    const links = FILES.flatMap((file) => readMarkdown(readFileSync(join(ROOT, file), 'utf8')).links);
    expect(PAGES.length).toBeGreaterThanOrEqual(15);
    expect(links.filter((l) => !/^[a-z]+:/i.test(l.target)).length).toBeGreaterThan(100);
    expect(links.filter((l) => l.target.includes('#')).length).toBeGreaterThan(40);
  });

  it("the README's Documentation links every page of docs/", () => {
    const readme = readMarkdown(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const linked = new Set(readme.links.map((l) => l.target.split('#')[0]));
    expect(PAGES.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('the link reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-docs-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names headings as GitHub does', () => {
    expect(slug('The runs page with 10,000 rows')).toBe('the-runs-page-with-10000-rows');
    expect(slug('Model connections (for LLM-as-judge evaluators)')).toBe('model-connections-for-llm-as-judge-evaluators');
    expect(slug('Overload, stalled uploads and Redis outages')).toBe('overload-stalled-uploads-and-redis-outages');
    expect(slug('`SIGHTLINE_TRUST_PROXY` and [the proxy](x.md)')).toBe('sightline_trust_proxy-and-the-proxy');
    expect(slug('Sign-in')).toBe('sign-in');
  });

  it('finds a missing file, a missing heading and a bad anchor, and nothing in code', () => {
    mkdirSync(join(dir, 'docs'), { recursive: true });
    writeFileSync(join(dir, 'docs', 'other.md'), '# Other page\n\n## Limits\n\n## Limits\n\n```sh\n# not a heading\n```\n');
    writeFileSync(
      join(dir, 'README.md'),
      [
        '# Guide',
        '[ok](docs/other.md#limits) [second](docs/other.md#limits-1) [self](#guide) [web](https://example.com/nowhere.md#x)',
        '[gone](docs/missing.md) [wrong](docs/other.md#not-a-heading) [here](#nowhere) [dir](docs/)',
        '`[in code](docs/missing.md)`',
        '```md',
        '[in a block](docs/missing.md)',
        '```',
        '[ref]: docs/other.md#other-page',
        '[bad ref]: docs/other.md#limits-2',
      ].join('\n'),
    );
    expect(brokenLinks(dir, 'README.md')).toEqual([
      'line 3: docs/missing.md (no such file)',
      'line 3: docs/other.md#not-a-heading (no heading "not-a-heading" in docs/other.md)',
      'line 3: #nowhere (no heading "nowhere" in README.md)',
      'line 9: docs/other.md#limits-2 (no heading "limits-2" in docs/other.md)',
    ]);
  });
});
