import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Token counts estimated for model runs that report none (streams whose client asked for no usage,
 * embeddings some instrumentations record without it): the texts a run sent and received, counted with
 * `gpt-tokenizer`'s o200k_base encoding (GPT-4o's, and as near as any one encoding gets for other models).
 *
 * Counted in a worker thread: loading the encoding parses its tables for 0.7 s or more and holds ~35 MB,
 * and counting is CPU work proportional to the text, none of which may hold up the event loop that
 * serves every other request. The worker starts when some run is first to be estimated and ends after
 * IDLE_MS without work, so an instance that never estimates never holds the tables.
 *
 * Bounded whatever a client sends: byte-pair encoding is quadratic in the length of one piece of text
 * (200,000 letters without a space took 90 s), so runs of more than PIECE characters without a space, or
 * of spaces, are counted in pieces of PIECE; a run's texts past MAX_RUN_CHARS are not estimated, one call
 * estimates at most MAX_CALL_CHARS, at most MAX_WAITING calls wait for the worker, and a call waits at most
 * TIMEOUT_MS. A run that cannot be estimated keeps no usage, as sent.
 */
export const MAX_RUN_CHARS = 262_144;
export const MAX_CALL_CHARS = 2_000_000;
const PIECE = 64;
const MAX_WAITING = 16;
const TIMEOUT_MS = 15_000;
const IDLE_MS = 60_000;

// The worker's script, run as CommonJS (`eval`): counts each run's texts, one message of runs at a time.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { countTokens } = require(workerData.encoding);
const PIECE = ${PIECE};
const LONG_RUN = new RegExp('\\\\S{' + (PIECE + 1) + ',}|\\\\s{' + (PIECE + 1) + ',}', 'g');
function tokensOf(text) {
  let total = 0;
  let rest = '';
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    for (let i = 0; i < match[0].length; i += PIECE) total += countTokens(match[0].slice(i, i + PIECE));
    rest += text.slice(last, match.index) + ' ';
    last = match.index + match[0].length;
  }
  return total + countTokens(last === 0 ? text : rest + text.slice(last));
}
parentPort.on('message', ({ id, runs }) => {
  const counts = runs.map((texts) => texts.reduce((sum, text) => sum + (text === '' ? 0 : tokensOf(text)), 0));
  parentPort.postMessage({ id, counts });
});
`;

type Waiting = { resolve: (counts: number[] | null) => void; timer: NodeJS.Timeout };

/** The worker that counts, started on demand; one process-wide (`tokenCounter`). */
export class TokenCounter {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;
  private idle: NodeJS.Timeout | null = null;

  /** The tokens of each run's texts, in order; null when they cannot be counted now (too many waiting, the worker failed or is late). */
  count(runs: readonly (readonly string[])[]): Promise<number[] | null> {
    if (runs.length === 0) return Promise.resolve([]);
    if (this.waiting.size >= MAX_WAITING) return Promise.resolve(null);
    const worker = this.started();
    const id = this.next++;
    return new Promise((resolve) => {
      // A worker that does not answer in time is ended, and every call waiting on it gets null.
      const timer = setTimeout(() => this.stop(), TIMEOUT_MS);
      timer.unref();
      this.waiting.set(id, { resolve, timer });
      if (this.idle) clearTimeout(this.idle);
      worker.postMessage({ id, runs });
    });
  }

  /** Ends the worker (the tables' memory goes with it); calls waiting on it get null. */
  stop(): void {
    const worker = this.worker;
    this.worker = null;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    for (const { resolve, timer } of this.waiting.values()) {
      clearTimeout(timer);
      resolve(null);
    }
    this.waiting.clear();
    if (worker) void worker.terminate().catch(() => {});
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const encoding = createRequire(import.meta.url).resolve('gpt-tokenizer/encoding/o200k_base');
    const worker = new Worker(WORKER, { eval: true, workerData: { encoding }, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    worker.on('message', ({ id, counts }: { id: number; counts: number[] }) => {
      const waiting = this.waiting.get(id);
      if (!waiting) return;
      this.waiting.delete(id);
      clearTimeout(waiting.timer);
      waiting.resolve(counts);
      if (this.waiting.size === 0 && this.worker === worker) {
        this.idle = setTimeout(() => this.stop(), IDLE_MS);
        this.idle.unref();
      }
    });
    // A worker that fails (out of its memory, say) or exits: its calls get null, the next call starts another.
    worker.on('error', () => this.worker === worker && this.stop());
    worker.on('exit', () => this.worker === worker && this.stop());
    return (this.worker = worker);
  }
}

export const tokenCounter = new TokenCounter();
