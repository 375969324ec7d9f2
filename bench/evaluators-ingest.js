#!/usr/bin/env node
// What evaluator sampling costs ingestion: the runs pipeline (`ingestRuns`, in process, SQLite) on
// 1,000-run batches into a project without rules and into one with rules, interleaved round by round
// so that a busy machine slows every variant alike. With BENCH_BASE_DIST, the same batches also go
// through another build's `ingestRuns` (e.g. main's, before sampling existed) on the same database.
//
//   npm run build && node bench/evaluators-ingest.js
//   BENCH_BASE_DIST=/path/to/main/dist BENCH_ROUNDS=10 node bench/evaluators-ingest.js
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const dist = new URL('../dist/', import.meta.url);
const { openStorage, migrateToLatest } = await import(new URL('db/index.js', dist));
const { ingestRuns } = await import(new URL('features/runs/runs.ingest.js', dist));
const { createProject } = await import(new URL('features/projects/projects.repo.js', dist));
const { ensureOrganization } = await import(new URL('features/organizations/organizations.repo.js', dist));
const { createRule } = await import(new URL('features/evaluators/evaluators.repo.js', dist));
const base = process.env.BENCH_BASE_DIST ? (await import(join(process.env.BENCH_BASE_DIST, 'features/runs/runs.ingest.js'))).ingestRuns : null;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const BATCH = 1000;
const tmp = mkdtempSync(join(os.tmpdir(), 'sl-evr-bench-'));
const { db } = await openStorage({ database: { kind: 'sqlite', path: join(tmp, 'bench.db') }, sqliteSynchronous: 'NORMAL' });
await migrateToLatest(db);
const now = Date.now();
const org = await ensureOrganization(db, 'bench', 'enterprise', now);
const project = async (name) => (await createProject(db, org.id, { name }, now)).id;
const variants = [
  ...(base ? [{ name: 'main (no sampling code)', projectId: await project('base'), ingest: base }] : []),
  { name: 'no rules', projectId: await project('none'), ingest: ingestRuns },
  { name: '1 rule at 0.3', projectId: await project('one'), ingest: ingestRuns, rules: [0.3] },
  { name: '5 rules at 1.0', projectId: await project('five'), ingest: ingestRuns, rules: [1, 1, 1, 1, 1] },
];
for (const v of variants)
  for (const [i, rate] of (v.rules ?? []).entries())
    await createRule(
      db,
      { organizationId: org.id, projectId: v.projectId },
      { name: `r${i}`, sampleRate: rate, evaluator: { type: 'json_valid' }, scoreName: 'valid' },
      now,
    );

let seq = 0;
const batch = () =>
  Array.from({ length: BATCH }, () => {
    const start = now - 86_400_000 + seq++;
    return {
      name: 'ChatOpenAI',
      kind: 'llm',
      status: 'succeeded',
      startTime: new Date(start).toISOString(),
      endTime: new Date(start + 900).toISOString(),
      inputs: { question: `question ${seq}` },
      outputs: { answer: `answer ${seq}` },
      tags: ['prod'],
    };
  });
const times = new Map(variants.map((v) => [v.name, []]));
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
    const runs = batch();
    const t0 = performance.now();
    await v.ingest(db, v.projectId, runs, Date.now(), (i) => `/runs/${i}`);
    if (round > 0) times.get(v.name).push(performance.now() - t0); // round 0 warms up
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const reference = median(times.get(variants[0].name));
for (const v of variants) {
  const ms = median(times.get(v.name));
  console.log(
    `${v.name.padEnd(24)} ${Math.round((BATCH / ms) * 1000)
      .toLocaleString('en-US')
      .padStart(8)} runs/s  (median ${ms.toFixed(1)} ms per 1,000; ×${(ms / reference).toFixed(2)} of ${variants[0].name})`,
  );
}
const jobs = await db
  .selectFrom('evaluation_jobs')
  .select((eb) => eb.fn.countAll().as('n'))
  .executeTakeFirstOrThrow();
console.log(`evaluation jobs queued: ${jobs.n}`);
await db.destroy();
rmSync(tmp, { recursive: true, force: true });
