// Start and idle memory (issue 26, target 3): `node bin/sightline.js serve` with the `npm start` flags, pinned
// to the server core, timed from the spawn to the first `/healthz` 200 (polled every 5 ms) on a SQLite
// database that the tree's CLI migrated and an unmeasured first start opened; resident memory 2 s after
// ready, and once after a longer idle (while the bench goes on). Each build's starts alternate with the other's.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, log, readRssNow, SERVER_CPU, spawnTracked, state, stopChild, tail } from './harness.js';
import { copyOf, startTree, templateOf, treeEnv } from './trees.js';

async function timedStart(tree, name, databaseUrl) {
  const port = await freePort();
  const env = treeEnv(port, databaseUrl, await freePort(), tree);
  const logFile = join(state.tmp, `${name}.log`);
  const t0 = performance.now();
  const child = spawnTracked('taskset', ['-c', SERVER_CPU, process.execPath, ...tree.flags, join(tree.root, 'bin/sightline.js'), 'serve'], { env, logFile });
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited during start:\n${tail(logFile)}`);
    if (performance.now() - t0 > 180_000) throw new Error(`${name} was not ready in 180 s:\n${tail(logFile)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return { child, ms: performance.now() - t0, readyAt: performance.now() };
    await sleep(5);
  }
}

/**
 * `trees`' start times (`starts` each) and idle memory: `{ results, idle }`, where `idle` resolves once the
 * last started server of each tree has been idle `idleSeconds` (its RSS read then, the server stopped). The
 * bench goes on meanwhile: an idle server takes next to no CPU, and its memory is its own.
 */
export async function startPhase(trees, { starts, idleSeconds }) {
  // On a copy of the template (migrated, keys made); the first start on it is not measured: a restart is.
  const databases = new Map(
    await Promise.all(
      trees.map(async (tree) => {
        const { url } = await copyOf(await templateOf(tree, 'sqlite'), `start-${tree.key}`);
        const { server } = await startTree(tree, `start-${tree.key}-first`, url);
        await stopChild(server.child);
        return [tree.key, url];
      }),
    ),
  );
  const results = Object.fromEntries(trees.map((t) => [t.key, { ms: [], rss2Kb: [], rssIdleKb: null }]));
  const last = [];
  for (let i = 0; i < starts; i++) {
    for (const tree of i % 2 === 0 ? trees : [...trees].reverse()) {
      const started = await timedStart(tree, `start-${tree.key}-${i + 1}`, databases.get(tree.key));
      await sleep(Math.max(0, 2000 - (performance.now() - started.readyAt)));
      const r = results[tree.key];
      r.ms.push(started.ms);
      r.rss2Kb.push(readRssNow(started.child.pid));
      log(`start ${tree.key} ${i + 1}: ready in ${Math.round(started.ms)} ms, RSS 2 s after ${(r.rss2Kb.at(-1) / 1024).toFixed(1)} MB`);
      if (i === starts - 1) last.push({ tree, ...started });
      else await stopChild(started.child);
    }
  }
  const idle = Promise.all(
    last.map(async (s) => {
      await sleep(Math.max(0, idleSeconds * 1000 - (performance.now() - s.readyAt)));
      results[s.tree.key].rssIdleKb = readRssNow(s.child.pid);
      log(`idle ${s.tree.key}: RSS ${idleSeconds} s after ready ${(results[s.tree.key].rssIdleKb / 1024).toFixed(1)} MB`);
      await stopChild(s.child);
    }),
  ).then(() => results);
  // Not awaited yet: a failure before the bench awaits it must not be an unhandled rejection.
  idle.catch(() => {});
  return { results, idle };
}
