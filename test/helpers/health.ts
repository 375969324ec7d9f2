/**
 * Asks a server's `/healthz` on a steady beat from a thread of its own, so the test's own work (reading a
 * large answer, encoding a large request) never delays an ask or an answer: each answer's latency from
 * its sending.
 */
import { Worker } from 'node:worker_threads';

/**
 * What asks `/healthz` every `everyMs` and times each answer, from its sending: a thread of its own, so
 * that the test's reading of the export in this thread never delays an ask or an answer.
 */
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let done = false;
parentPort.once('message', () => (done = true));
const ask = () => new Promise((resolve, reject) => {
  const req = http.request(workerData.url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
  req.setTimeout(30000, () => req.destroy(new Error('/healthz did not answer within 30 s')));
  req.on('error', reject);
  req.end();
});
(async () => {
  const asks = [];
  while (!done) {
    const sent = performance.now();
    const status = await ask();
    asks.push({ status, ms: performance.now() - sent });
    await new Promise((resolve) => setTimeout(resolve, workerData.everyMs));
  }
  agent.destroy();
  parentPort.postMessage(asks);
})().catch((error) => parentPort.postMessage(String(error)));
`;

/** Asks `/healthz` every `everyMs` until `until` settles; each answer's status and latency. */
export async function pollHealth(url: string, until: Promise<unknown>, everyMs = 50): Promise<{ status: number; ms: number }[]> {
  const poller = new Worker(POLLER, { eval: true, workerData: { url, everyMs } });
  try {
    const result = new Promise<unknown>((resolve, reject) => {
      poller.once('message', resolve);
      poller.once('error', reject);
    });
    await until.catch(() => {});
    poller.postMessage('stop');
    const asks = await result;
    if (!Array.isArray(asks)) throw new Error(`the /healthz poller failed: ${String(asks)}`);
    return asks as { status: number; ms: number }[];
  } finally {
    await poller.terminate();
  }
}
