/**
 * Cacheable reads (`config.cacheable`: the runs, traces, sessions and end users lists and records) are sent
 * again from `lib/read-cache.ts` only while the database is in the state they were read in: every write,
 * by this instance or by another connection (another instance, the CLI), is seen at the next request;
 * another organization never gets an answer kept for one; the credential is checked on every request.
 * (The whole suite runs with the cache on, so every test that reads after a write checks it too.)
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describeRuns, projectFor, iso, NOW, HOUR } from '../src/features/runs/runs.test-support.js';
import { expectProblem } from './helpers/harness.js';

describeRuns('the read cache', (ctx) => {
  const at = (offset: number) => iso(NOW - HOUR + offset);
  const trace = [
    { id: 'root', name: 'agent', kind: 'agent', status: 'succeeded', startTime: at(0), endTime: at(2000), sessionId: 'chat-1', userId: 'ada' },
    // Running, so that it can be ended (finished runs are final).
    { id: 'llm', parentRunId: 'root', name: 'chat', kind: 'llm', status: 'running', startTime: at(100), usage: { promptTokens: 10, completionTokens: 5 } },
  ];

  /** The answers of every cacheable read of the project, by path. */
  async function readAll(p: Awaited<ReturnType<typeof projectFor>>): Promise<Record<string, string>> {
    const paths = ['/runs', '/runs/llm', '/traces', '/traces/root', '/sessions', '/sessions/chat-1', '/users', '/users/ada'];
    const answers: Record<string, string> = {};
    for (const path of paths) {
      const res = await ctx.request('GET', `/v1/projects/${p.id}${path}`, { token: p.caller.token });
      answers[path] = `${res.statusCode} ${res.body}`;
    }
    return answers;
  }

  it('answers an unchanged database from the cache, byte for byte, with the credential checked each time', async () => {
    const p = await projectFor(ctx);
    await p.seed(trace);
    const first = await readAll(p);
    const before = ctx.app.readCache.stats();
    const second = await readAll(p);
    const third = await readAll(p);
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    expect(first['/traces/root']).toMatch(/^200 /);
    // On SQLite nothing else writes to the suite's database. On PostgreSQL the state is the cluster's
    // snapshot, which any other suite's write moves on, so the hits are counted on SQLite only.
    if (ctx.dialect === 'sqlite') expect(ctx.app.readCache.stats().hits - before.hits).toBeGreaterThanOrEqual(8);

    const revoke = await ctx.request('DELETE', `/v1/tokens/${p.caller.tokenId}`, { token: p.caller.token });
    expect(revoke.statusCode, revoke.body).toBe(204);
    expectProblem(await ctx.request('GET', `/v1/projects/${p.id}/traces`, { token: p.caller.token }), 401, 'unauthorized');
  });

  it('reads a burst of the same first read once: the others wait for its answer, and a failed read lets them read on their own', async () => {
    const p = await projectFor(ctx);
    await p.seed(trace);
    const before = ctx.app.readCache.stats();
    const burst = await Promise.all(Array.from({ length: 20 }, () => ctx.request('GET', `/v1/projects/${p.id}/traces/root`, { token: p.caller.token })));
    for (const res of burst) expect(`${res.statusCode} ${res.body}`).toBe(`${burst[0]!.statusCode} ${burst[0]!.body}`);
    expect(burst[0]!.statusCode).toBe(200);
    // On SQLite nothing else moves the state on meanwhile (on PostgreSQL another suite's write may).
    if (ctx.dialect === 'sqlite') expect(ctx.app.readCache.stats().coalesced - before.coalesced).toBeGreaterThanOrEqual(10);

    const started = performance.now();
    const missing = await Promise.all(Array.from({ length: 10 }, () => ctx.request('GET', `/v1/projects/${p.id}/traces/nowhere`, { token: p.caller.token })));
    for (const res of missing) expectProblem(res, 404, 'not-found');
    // Let go at once by the failed read (about 50 ms here), not by the 10-second bound of a wait.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('never sends one organization the answer kept for another', async () => {
    const p = await projectFor(ctx);
    await p.seed(trace);
    await readAll(p);
    await readAll(p);
    const stranger = await ctx.make.caller({ role: 'owner' });
    for (const path of ['/runs', '/traces/root', '/sessions/chat-1']) {
      expectProblem(await ctx.request('GET', `/v1/projects/${p.id}${path}`, { token: stranger.token }), 404, 'not-found');
    }
  });

  it('reads afresh after every write through the API: ingest, update, scores', async () => {
    const p = await projectFor(ctx);
    await p.seed(trace);
    await readAll(p);
    const cached = await readAll(p);

    await p.seed([{ id: 'tool', parentRunId: 'root', name: 'lookup', kind: 'tool', status: 'succeeded', startTime: at(1000), endTime: at(1100) }]);
    const ingested = await readAll(p);
    expect(JSON.parse(ingested['/runs']!.slice(4)).items).toHaveLength(3);
    expect(JSON.parse(ingested['/traces/root']!.slice(4)).runs).toHaveLength(3);
    expect(ingested['/traces']).not.toEqual(cached['/traces']);

    const patch = await p.patch('llm', { status: 'succeeded', endTime: at(900), outputs: 'done' });
    expect(patch.statusCode, patch.body).toBe(200);
    const patched = await readAll(p);
    expect(JSON.parse(patched['/runs/llm']!.slice(4))).toMatchObject({ status: 'succeeded', outputs: 'done' });
    expect(JSON.parse(patched['/traces/root']!.slice(4)).runs.find((r: { id: string }) => r.id === 'llm').status).toBe('succeeded');

    const score = await ctx.request('POST', `/v1/projects/${p.id}/runs/llm/scores`, { token: p.caller.token, body: { name: 'helpfulness', value: 0.5 } });
    expect(score.statusCode, score.body).toBe(201);
    const scored = await readAll(p);
    expect(JSON.parse(scored['/runs/llm']!.slice(4)).scores).toEqual([expect.objectContaining({ name: 'helpfulness' })]);
    const listed = JSON.parse(scored['/runs']!.slice(4)).items.find((r: { id: string }) => r.id === 'llm');
    expect(listed.scores).toEqual([expect.objectContaining({ name: 'helpfulness' })]);
  });

  it('reads afresh after a write by another connection to the same database (another instance, the CLI)', async () => {
    const p = await projectFor(ctx);
    await p.seed(trace);
    await readAll(p);
    const cached = await readAll(p);
    expect(cached['/runs/llm']).toMatch(/^200 /);

    const rename = "update runs set name = 'renamed elsewhere' where project_id = $1 and id = 'llm'";
    if (ctx.dialect === 'sqlite') {
      const other = new BetterSqlite3((ctx.database.config as { path: string }).path);
      try {
        other.pragma('busy_timeout = 5000');
        other.prepare(rename.replace('$1', '?')).run(p.id);
      } finally {
        other.close();
      }
    } else {
      const other = new pg.Client({ connectionString: (ctx.database.config as { url: string }).url });
      await other.connect();
      try {
        await other.query(rename, [p.id]);
      } finally {
        await other.end();
      }
    }
    const after = await readAll(p);
    // The trace's outline is read from the runs' columns; the run's record is its stored document.
    expect(JSON.parse(after['/traces/root']!.slice(4)).runs.map((r: { name: string }) => r.name)).toContain('renamed elsewhere');
    expect(after['/traces/root']).not.toEqual(cached['/traces/root']);
  });
});
