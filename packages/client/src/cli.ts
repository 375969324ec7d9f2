/**
 * The remote commands of `npx sightline` (projects, runs, prompts), on top of the SDK. Runtime-agnostic:
 * the host (src/cli.ts in the service) passes the output streams, the environment and an abort signal
 * for Ctrl-C.
 */
import { Sightline } from './client.js';
import { SightlineNetworkError, SightlineProblem } from './errors.js';
import type { PageResult } from './pagination.js';
import type { Run, RunFilters } from './types.js';

export interface CliIo {
  /** Standard output; may return a promise to apply backpressure. */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** A terminal on stderr gets a live progress line on long walks. */
  stderrIsTTY?: boolean;
  /** Aborted on interruption (Ctrl-C): the command stops, and `runs export` prints where to resume. */
  signal?: AbortSignal;
  /** For tests. */
  fetch?: typeof globalThis.fetch;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

class UsageError extends Error {}

interface OptionSpec {
  [name: string]: 'string' | 'boolean' | 'multiple';
}

/** A strict long-option parser (`--name value`, `--name=value`, repeatable options, positionals). */
export function parseOptions(argv: string[], spec: OptionSpec): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  const values: Record<string, string | boolean | string[] | undefined> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined || (eq === -1 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (kind === 'multiple') values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else values[name] = value;
  }
  return { values, positionals };
}

const COMMON: OptionSpec = { url: 'string', help: 'boolean' };
const RUN_FILTERS: OptionSpec = {
  project: 'string',
  status: 'string',
  kind: 'string',
  name: 'string',
  tag: 'multiple',
  model: 'string',
  'trace-id': 'string',
  'parent-run-id': 'string',
  'started-after': 'string',
  'started-before': 'string',
  metadata: 'multiple',
  limit: 'string',
  progress: 'boolean',
  quiet: 'boolean',
};

function clientFor(values: Record<string, unknown>, io: CliIo): Sightline {
  const baseUrl = (values.url as string | undefined) ?? io.env.SIGHTLINE_URL ?? 'http://localhost:8080';
  const token = io.env.SIGHTLINE_TOKEN;
  if (!token) throw new UsageError('SIGHTLINE_TOKEN is not set (a personal access token: see `sightline token create`)');
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) throw new UsageError(`--url must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  return new Sightline({ baseUrl, token, ...(io.fetch ? { fetch: io.fetch } : {}) });
}

function pageSize(values: Record<string, unknown>): number | undefined {
  const raw = values.limit as string | undefined;
  if (raw === undefined) return 100;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) throw new UsageError('--limit (page size) must be an integer from 1 to 100');
  return Number(raw);
}

function runFilters(values: Record<string, unknown>): RunFilters {
  const filters: Record<string, unknown> = {};
  const map: [string, string][] = [
    ['status', 'status'],
    ['kind', 'kind'],
    ['name', 'name'],
    ['model', 'model'],
    ['trace-id', 'traceId'],
    ['started-after', 'startedAfter'],
    ['started-before', 'startedBefore'],
  ];
  for (const [option, field] of map) if (values[option] !== undefined) filters[field] = values[option];
  if (values.tag) filters.tag = values.tag;
  if (values['parent-run-id'] !== undefined) filters.parentRunId = values['parent-run-id'] === 'null' ? null : values['parent-run-id'];
  for (const pair of (values.metadata as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--metadata takes key=value, got ${JSON.stringify(pair)}`);
    filters[`metadata.${pair.slice(0, eq)}`] = pair.slice(eq + 1);
  }
  return filters as RunFilters;
}

/** A progress line on stderr: live on a terminal, a line per page with --progress, else nothing. */
function progress(io: CliIo, values: Record<string, unknown>, what: string) {
  const live = io.stderrIsTTY === true && !values.quiet;
  const lines = values.progress === true && !live;
  let shown = false;
  return {
    page(items: number, pages: number) {
      if (live && pages > 1) {
        io.stderr(`\r${items.toLocaleString('en-US')} ${what}, ${pages} pages…`);
        shown = true;
      } else if (lines) io.stderr(`sightline: ${items} ${what} (${pages} page${pages === 1 ? '' : 's'})\n`);
    },
    done() {
      if (shown) io.stderr('\r\u001b[K');
    },
  };
}

const pad = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

function runRow(run: Run): string {
  const latency = run.latencyMs === null ? '-' : `${run.latencyMs} ms`;
  return `${run.id.padEnd(30)}  ${pad(run.status, 9)}  ${pad(run.kind, 9)}  ${pad(run.name, 24)}  ${pad(run.model ?? '-', 16)}  ${run.startTime}  ${latency}\n`;
}
const RUN_HEADER = `${'ID'.padEnd(30)}  ${'STATUS'.padEnd(9)}  ${'KIND'.padEnd(9)}  ${'NAME'.padEnd(24)}  ${'MODEL'.padEnd(16)}  ${'START'.padEnd(24)}  LATENCY\n`;

/** Writes a walk's items as a table (rows as they arrive) or a JSON array (streamed). */
async function writeList<T>(
  io: CliIo,
  pages: AsyncIterable<PageResult<T>>,
  json: boolean,
  header: string,
  row: (item: T) => string,
  onPage: (items: number, pages: number) => void,
): Promise<number> {
  let count = 0;
  let pageCount = 0;
  if (json) await io.stdout('[');
  else await io.stdout(header);
  for await (const page of pages) {
    pageCount += 1;
    let chunk = '';
    for (const item of page.items) {
      chunk += json ? `${count === 0 ? '\n' : ',\n'}${JSON.stringify(item)}` : row(item);
      count += 1;
    }
    if (chunk) await io.stdout(chunk);
    onPage(count, pageCount);
    if (io.signal?.aborted) throw io.signal.reason;
  }
  await io.stdout(json ? (count === 0 ? ']\n' : '\n]\n') : '');
  return count;
}

async function projectsList(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(argv, { ...COMMON, name: 'string', json: 'boolean', limit: 'string' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const client = clientFor(values, io);
  const list = client.projects.list(values.name ? { name: values.name as string } : {}, {
    limit: pageSize(values),
    ...(io.signal ? { signal: io.signal } : {}),
  });
  await writeList(
    io,
    list.pages(),
    values.json === true,
    `${'ID'.padEnd(30)}  ${'NAME'.padEnd(32)}  ${'CREATED'.padEnd(24)}  DESCRIPTION\n`,
    (p) => `${p.id.padEnd(30)}  ${pad(p.name, 32)}  ${p.createdAt}  ${pad(p.description, 40).trimEnd()}\n`,
    () => {},
  );
  return EXIT.ok;
}

async function runsList(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(argv, { ...COMMON, ...RUN_FILTERS, json: 'boolean' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const project = values.project as string | undefined;
  if (!project) throw new UsageError('--project <id> is required');
  const client = clientFor(values, io);
  const filters = runFilters(values);
  const bar = progress(io, values, 'runs');
  const list = client.runs.list(project, filters, { limit: pageSize(values), ...(io.signal ? { signal: io.signal } : {}) });
  try {
    await writeList(io, list.pages(), values.json === true, RUN_HEADER, runRow, (n, p) => bar.page(n, p));
  } finally {
    bar.done();
  }
  return EXIT.ok;
}

async function runsExport(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(argv, { ...COMMON, ...RUN_FILTERS, format: 'string', cursor: 'string' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const project = values.project as string | undefined;
  if (!project) throw new UsageError('--project <id> is required');
  const format = (values.format as string | undefined) ?? 'ndjson';
  if (format !== 'ndjson') throw new UsageError(`--format must be ndjson, got ${JSON.stringify(format)}`);
  const client = clientFor(values, io);
  const filters = runFilters(values);
  const start = values.cursor as string | undefined;
  const bar = progress(io, values, 'runs');
  const list = client.runs.list(project, filters, {
    limit: pageSize(values),
    ...(start ? { cursor: start } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  });
  // The cursor of the first page not yet written in full: where a new walk picks up.
  let resume: string | undefined = start;
  let count = 0;
  let pages = 0;
  try {
    for await (const page of list.pages()) {
      let chunk = '';
      for (const run of page.items) chunk += `${JSON.stringify(run)}\n`;
      if (chunk) await io.stdout(chunk);
      count += page.items.length;
      pages += 1;
      resume = page.nextCursor ?? undefined;
      bar.page(count, pages);
      if (io.signal?.aborted && resume !== undefined) throw io.signal.reason;
    }
    bar.done();
    if (values.progress) io.stderr(`sightline: exported ${count} runs\n`);
    return EXIT.ok;
  } catch (error) {
    bar.done();
    const interrupted = io.signal?.aborted === true;
    const why = interrupted ? 'interrupted' : `stopped: ${message(error)}`;
    io.stderr(`sightline: ${why} after ${count} runs.\n`);
    if (resume !== undefined) {
      io.stderr(`sightline: resume with the same filters and --cursor ${resume}\n`);
      io.stderr(`resume-cursor: ${resume}\n`);
    } else {
      io.stderr('sightline: no page was written in full; start again without --cursor\n');
    }
    return interrupted ? EXIT.interrupted : EXIT.failed;
  }
}

async function promptsGet(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(argv, { ...COMMON, label: 'string', version: 'string', json: 'boolean' });
  const [name, ...extra] = positionals;
  if (!name) throw new UsageError('usage: sightline prompts get NAME [--label <label> | --version <n>]');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  if (values.label !== undefined && values.version !== undefined) throw new UsageError('give --label or --version, not both');
  if (values.version !== undefined && !/^[1-9]\d*$/.test(values.version as string)) throw new UsageError('--version must be a positive integer');
  const client = clientFor(values, io);
  const call = io.signal ? { signal: io.signal } : {};
  const ref = (values.label as string | undefined) ?? (values.version as string | undefined) ?? (await client.prompts.get(name, call)).latestVersion;
  const version = await client.prompts.versions.get(name, ref, call);
  if (values.json) {
    await io.stdout(`${JSON.stringify(version, null, 2)}\n`);
    return EXIT.ok;
  }
  const label = values.label ? ` (label ${values.label as string})` : '';
  io.stderr(
    `# ${name} version ${version.version}${label}; variables: ${version.variables.join(', ') || '(none)'}; config: ${JSON.stringify(version.config)}\n`,
  );
  if (typeof version.template === 'string') await io.stdout(version.template.endsWith('\n') ? version.template : `${version.template}\n`);
  else await io.stdout(version.template.map((m) => `[${m.role}]\n${m.content}\n`).join('\n'));
  return EXIT.ok;
}

function message(error: unknown): string {
  if (error instanceof SightlineProblem || error instanceof SightlineNetworkError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Runs `projects list`, `runs list`, `runs export` or `prompts get`; returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, sub, ...rest] = argv;
  const which = `${command ?? ''} ${sub ?? ''}`.trim();
  try {
    switch (which) {
      case 'projects list':
        return await projectsList(rest, io);
      case 'runs list':
        return await runsList(rest, io);
      case 'runs export':
        return await runsExport(rest, io);
      case 'prompts get':
        return await promptsGet(rest, io);
      default:
        throw new UsageError(`unknown command '${which}'. Run 'sightline ${command ?? ''} --help'.`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`sightline: ${error.message}\n`);
      return EXIT.usage;
    }
    if (io.signal?.aborted) {
      io.stderr('sightline: interrupted\n');
      return EXIT.interrupted;
    }
    if (error instanceof SightlineProblem || error instanceof SightlineNetworkError) {
      io.stderr(`sightline: ${error.message}\n`);
      return EXIT.failed;
    }
    throw error;
  }
}
