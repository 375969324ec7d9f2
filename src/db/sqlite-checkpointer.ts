import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies what the WAL holds back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 100;

// The worker's script, run as CommonJS (`eval`): a connection of its own to the same file, and a
// passive checkpoint every interval. A passive checkpoint never waits for the writer or the readers
// of the serving connection and never makes them wait: it copies the frames no reader still needs.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('wal_autocheckpoint = 0');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy (another checkpoint in progress) or a transient error: the next interval tries again
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage('closed');
});
`;

/**
 * Copies the WAL back into the database file from a worker thread, so that the serving thread never
 * does. SQLite checkpoints when a commit finds the WAL past `wal_autocheckpoint` pages, in the
 * committing thread: with Node that is the event loop, blocked for as long as the copy and its fsync
 * take (about a second for 80 MB), with every request and health check waiting. The worker keeps the
 * WAL nearly copied at all times, so the serving connection's own checkpoints (kept as a backstop)
 * find almost nothing left to do. One per serving process, for a database file.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private closed: Promise<void> | null = null;

  constructor(path: string, intervalMs = CHECKPOINT_INTERVAL_MS) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER, { eval: true, workerData: { path, driver, intervalMs }, resourceLimits: { maxOldGenerationSizeMb: 16 } });
    // It never keeps the process alive, and its failure costs only the backstop's pauses.
    this.worker.unref();
    this.worker.on('error', () => {});
  }

  /** Stops it after a last checkpoint; resolves once its connection is closed. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      const done = () => resolve();
      this.worker.once('exit', done);
      this.worker.once('message', () => void this.worker.terminate().then(done, done));
      this.worker.postMessage('close');
      // A worker that does not answer (it failed) is ended anyway.
      setTimeout(() => void this.worker.terminate().then(done, done), 5000).unref();
    });
    return this.closed;
  }
}
