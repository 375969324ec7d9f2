/**
 * The remote commands of `npx sightline` (projects, runs, prompts), on top of the SDK. Runtime-agnostic:
 * the host (src/cli.ts in the service) passes the output streams, the environment and an abort signal
 * for Ctrl-C.
 */
import { clientFor, COMMON, pageSize, parseOptions, RUN_FILTERS, runFilters, UsageError } from './cli-options.js';
import { pad, progress, RUN_HEADER, runRow, writeList, type CliIo } from './cli-output.js';
import { SightlineNetworkError, SightlineProblem } from './errors.js';

export { parseOptions } from './cli-options.js';
export type { CliIo } from './cli-output.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

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
