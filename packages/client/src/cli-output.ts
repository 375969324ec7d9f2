/** The remote commands' input and output (the host's streams, environment and signal): a progress line on stderr, and a walk's items written as a table or a JSON array. */
import type { PageResult } from './pagination.js';
import type { Run } from './types.js';

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

/** A progress line on stderr: live on a terminal, a line per page with --progress, else nothing. */
export function progress(io: CliIo, values: Record<string, unknown>, what: string) {
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

export const pad = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

export function runRow(run: Run): string {
  const latency = run.latencyMs === null ? '-' : `${run.latencyMs} ms`;
  return `${run.id.padEnd(30)}  ${pad(run.status, 9)}  ${pad(run.kind, 9)}  ${pad(run.name, 24)}  ${pad(run.model ?? '-', 16)}  ${run.startTime}  ${latency}\n`;
}
export const RUN_HEADER = `${'ID'.padEnd(30)}  ${'STATUS'.padEnd(9)}  ${'KIND'.padEnd(9)}  ${'NAME'.padEnd(24)}  ${'MODEL'.padEnd(16)}  ${'START'.padEnd(24)}  LATENCY\n`;

/** Writes a walk's items as a table (rows as they arrive) or a JSON array (streamed). */
export async function writeList<T>(
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
