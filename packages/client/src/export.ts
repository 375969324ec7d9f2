import { SightlineNetworkError } from './errors.js';
import type { StreamResponse, Transport } from './http.js';
import { collect } from './pagination.js';

export interface ExportOptions {
  /** Start from this cursor (one an earlier export reported through `onCursor` or `cursor`). */
  cursor?: string;
  signal?: AbortSignal;
  /**
   * Told at every cursor line (every 100 records): where an export started again with the same
   * filters picks up if this process stops now, and how many records this walk has yielded.
   */
  onCursor?: (cursor: string, exported: number) => void;
}

/** A line longer than this is not a record the server sends: the export stops rather than buffer it. */
const MAX_LINE = 64 * 1024 * 1024;

/** Lines of a streamed body; a read that waits longer than `idleMs` for bytes ends it as a timeout. */
async function* linesOf(stream: StreamResponse, idleMs: number): AsyncGenerator<string, void, undefined> {
  const reader = stream.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new IdleTimeout(idleMs)), idleMs);
      });
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await Promise.race([reader.read(), idle]);
      } finally {
        clearTimeout(timer);
      }
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (line.length > 0) yield line;
      }
      if (buffer.length > MAX_LINE) throw new Error(`The export sent a line longer than ${MAX_LINE} characters`);
    }
    buffer += decoder.decode();
    if (buffer.length > 0) yield buffer; // a last line cut short: parsing it fails, and the walk resumes
  } finally {
    // Ends the transfer (a no-op after its end); not awaited, as a stalled source may never answer.
    reader.cancel().catch(() => {});
  }
}

class IdleTimeout extends Error {
  constructor(ms: number) {
    super(`no data for ${ms} ms`);
  }
}

const isCursorLine = (value: unknown): value is { cursor: string | null } =>
  typeof value === 'object' && value !== null && 'cursor' in value && Object.keys(value).length === 1;

/**
 * An export: `for await (const record of exported)` yields every record the filters select, in the
 * list's order, from one streamed response (`GET …/export`, NDJSON). When the connection drops, stalls
 * or the response ends early (a server ends a stream at its time bound), it asks again from the last
 * cursor line and skips the records it already yielded past that cursor, so none is yielded twice or
 * missed; it gives up after the client's `retries` consecutive failures that yielded nothing new.
 * A problem answer (400, 403, 404…) is thrown as a SightlineProblem at once.
 */
export class Exported<T> implements AsyncIterable<T> {
  /** The last cursor the server gave in this walk (where to resume); undefined before the first. */
  cursor: string | undefined;
  /** Records yielded so far by this walk. */
  count = 0;

  constructor(
    private readonly http: Transport,
    private readonly path: string,
    private readonly query: Record<string, unknown>,
    private readonly keyOf: (record: T) => string,
    private readonly options: ExportOptions = {},
  ) {
    this.cursor = options.cursor;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    const { signal, onCursor } = this.options;
    const label = `GET /v1${this.path}`;
    let cursor = this.options.cursor;
    /** Keys yielded since `cursor`: a resumed stream sends them again first. */
    const sinceCursor = new Set<string>();
    let failures = 0;
    for (;;) {
      const stream = await this.http.stream({
        method: 'GET',
        path: this.path,
        query: { ...(this.query as Record<string, string>), format: 'ndjson', cursor },
        signal,
      });
      let progressed = false;
      let failure: unknown = null;
      try {
        for await (const line of linesOf(stream, this.http.attemptTimeoutMs)) {
          const value: unknown = JSON.parse(line);
          if (isCursorLine(value)) {
            if (value.cursor === null) return;
            cursor = this.cursor = value.cursor;
            sinceCursor.clear();
            progressed = true;
            onCursor?.(value.cursor, this.count);
            continue;
          }
          const key = this.keyOf(value as T);
          if (sinceCursor.has(key)) continue; // yielded before the drop
          sinceCursor.add(key);
          this.count += 1;
          progressed = true;
          yield value as T;
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        failure = error;
      } finally {
        stream.close();
      }
      // Cut short: by a drop, a stall, a torn line, or the end of a response without its last cursor.
      failures = progressed ? 1 : failures + 1;
      if (failures > this.http.retries) {
        throw new SightlineNetworkError({
          kind: failure instanceof IdleTimeout ? 'timeout' : 'connection',
          request: label,
          attempts: failures,
          cause: failure ?? new Error('the export ended before its last cursor line'),
        });
      }
      await this.http.pauseBeforeRetry(failures, label, failure instanceof IdleTimeout ? 'timeout' : 'network', signal);
    }
  }

  /** Every record, in order (mind the memory on big exports; `max` stops early). */
  async toArray(max = Infinity): Promise<T[]> {
    return collect(this, max);
  }
}
