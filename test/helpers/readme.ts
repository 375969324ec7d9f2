// The README's examples, as the suites that run them as written read them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: examples run from a file inside it resolve their imports to the packages the project pins. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The README's section of this title, up to the next heading of its level or above. */
export function section(title: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`### ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "${title}"`);
  const rest = readme.slice(start + title.length + 5);
  const end = rest.search(/^#{2,3} /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The code blocks of a language in a text, in order. */
export const blocks = (text: string, language: string) => [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
