/**
 * Several instances behave as one: two real server processes (`node bin/sightline.js serve`) on one
 * PostgreSQL database and one Redis. Cursors, revocations, role changes and rate limits made on one are
 * honoured by the other, and both may start at once against an empty database.
 *
 * Needs PostgreSQL and Redis. Skipped locally when either is unreachable; in CI (`CI` set) that is a failure.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/build-if-needed.js';
import { migrations } from '../src/db/migrations/index.js';
import type { Json } from './helpers/json.js';
import { cliToken, startInstance, stop, waitForReady, type Instance, type Minted } from './helpers/process.js';
import { freePort, REDIS_URL, redisReachable } from './helpers/services.js';
import { PG_URL, postgresReachable } from './helpers/storage.js';

const RATE_LIMIT = 30;

const [pgUp, redisUp] = await Promise.all([postgresReachable(), redisReachable()]);
const available = pgUp && redisUp;
const suite = available || process.env.CI ? describe : describe.skip;

interface Answer {
  status: number;
  headers: Headers;
  /** The parsed body; null when the answer is not JSON. */
  body: Json;
  text: string;
}

async function call(instance: Instance, method: string, path: string, token: string | null, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(instance.url(path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed as Json, text };
}

const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;

suite('several instances behave as one (PostgreSQL + Redis, two server processes)', () => {
  const suffix = randomBytes(5).toString('hex');
  const database = `sl_inst_${suffix}`;
  const prefix = `sl-inst-${suffix}`;
  let env: Record<string, string>;
  let a: Instance | undefined;
  let b: Instance | undefined;
  let databaseCreated = false;
  let owner: Minted;
  let member: Minted;

  const A = () => a!;
  const B = () => b!;
  const admin = () => new pg.Client({ connectionString: PG_URL });
  const onDatabase = () => {
    const url = new URL(PG_URL);
    url.pathname = `/${database}`;
    return new pg.Client({ connectionString: url.toString() });
  };

  beforeAll(async () => {
    if (!available) throw new Error(`PostgreSQL (${PG_URL}: ${pgUp ? 'up' : 'down'}) and Redis (${REDIS_URL}: ${redisUp ? 'up' : 'down'}) are required in CI`);
    ensureBuilt();

    const client = admin();
    await client.connect();
    await client.query(`create database ${database}`);
    await client.end();
    databaseCreated = true;
    const databaseUrl = new URL(PG_URL);
    databaseUrl.pathname = `/${database}`;

    const [portA, portB] = [await freePort(), await freePort()];
    env = {
      DATABASE_URL: databaseUrl.toString(),
      // One public URL for both: it is the token issuer and audience, as behind a load balancer.
      SIGHTLINE_PUBLIC_URL: `http://127.0.0.1:${portA}`,
      REDIS_URL,
      SIGHTLINE_REDIS_PREFIX: prefix,
      SIGHTLINE_RATE_LIMIT: String(RATE_LIMIT),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };
    // Both at once, against an empty database: migrations and key generation race.
    a = startInstance('A', portA, env);
    b = startInstance('B', portB, env);
    await Promise.all([waitForReady(a), waitForReady(b)]);

    const org = `inst-${suffix}`;
    owner = await cliToken(env, `owner-${suffix}@example.test`, org, 'owner');
    member = await cliToken(env, `member-${suffix}@example.test`, org, 'member');
    expect(member.organizationId).toBe(owner.organizationId);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([stop(a), stop(b)]);
    if (databaseCreated) {
      const client = admin();
      await client.connect();
      await client.query(`drop database if exists ${database} with (force)`);
      await client.end();
    }
    if (available) {
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      redis.on('error', () => {});
      try {
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    }
  }, 60_000);

  it('both started at once against an empty database: migrated once, and each verifies the tokens the other signs', async () => {
    const client = onDatabase();
    await client.connect();
    try {
      const applied = (await client.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name);
      expect(applied).toEqual(Object.keys(migrations).sort());
      const keys = (await client.query<{ purpose: string; n: string }>('select purpose, count(*) as n from service_keys group by purpose order by purpose'))
        .rows;
      expect(keys.map((k) => k.purpose)).toEqual(['cursor', 'secret', 'signing']);
    } finally {
      await client.end();
    }

    // The CLI's token works on both.
    for (const instance of [A(), B()]) {
      const me = await call(instance, 'GET', '/v1/me', owner.token);
      expect(me.status, `${instance.name}: ${me.text}`).toBe(200);
      expect(me.body).toMatchObject({ organization: { id: owner.organizationId }, role: 'owner' });
    }
    // Tokens signed by each instance are accepted by the other.
    const fromA = await call(A(), 'POST', '/v1/tokens', owner.token, { name: 'signed-by-A' });
    const fromB = await call(B(), 'POST', '/v1/tokens', owner.token, { name: 'signed-by-B' });
    expect(fromA.status, fromA.text).toBe(201);
    expect(fromB.status, fromB.text).toBe(201);
    const onB = await call(B(), 'GET', '/v1/me', fromA.body.token);
    const onA = await call(A(), 'GET', '/v1/me', fromB.body.token);
    expect(onB.status, `A's token on B (kid ${kidOf(fromA.body.token)}): ${onB.text}`).toBe(200);
    expect(onA.status, `B's token on A (kid ${kidOf(fromB.body.token)}): ${onA.text}`).toBe(200);
    expect(onB.body.token.id).toBe(fromA.body.id);
    expect(onA.body.token.id).toBe(fromB.body.id);
  });

  it('a runs cursor minted by A is accepted by B (and the other way round), without duplicates', async () => {
    const project = await call(A(), 'POST', '/v1/projects', owner.token, { name: `cursor-${suffix}` });
    expect(project.status, project.text).toBe(201);
    const base = Date.parse('2026-11-01T00:00:00.000Z');
    const runs = Array.from({ length: 30 }, (_, i) => ({ name: 'ChatOpenAI', kind: 'llm', startTime: new Date(base + i * 1000).toISOString() }));
    const batch = await call(A(), 'POST', `/v1/projects/${project.body.id}/runs/batch`, owner.token, { runs });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.results.every((r: { status: string }) => r.status === 'created')).toBe(true);

    const path = `/v1/projects/${project.body.id}/runs`;
    const page1 = await call(A(), 'GET', path, owner.token);
    expect(page1.status, page1.text).toBe(200);
    expect(page1.body.items).toHaveLength(25);
    expect(typeof page1.body.nextCursor).toBe('string');
    const page2 = await call(B(), 'GET', `${path}?cursor=${page1.body.nextCursor}`, owner.token);
    expect(page2.status, page2.text).toBe(200);
    expect(page2.body.items).toHaveLength(5);
    expect(page2.body.nextCursor).toBeNull();
    const ids = [...page1.body.items, ...page2.body.items].map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(30);
    expect(new Set(ids)).toEqual(new Set(batch.body.results.map((r: { id: string }) => r.id)));

    // B's cursor continues on A.
    const fromB = await call(B(), 'GET', `${path}?limit=20`, owner.token);
    expect(fromB.status, fromB.text).toBe(200);
    const onA = await call(A(), 'GET', `${path}?limit=20&cursor=${fromB.body.nextCursor}`, owner.token);
    expect(onA.status, onA.text).toBe(200);
    expect(onA.body.items.map((r: { id: string }) => r.id)).toEqual(ids.slice(20));
  });

  it('a token revoked through A is refused by B within 5 seconds', async () => {
    const minted = await call(A(), 'POST', '/v1/tokens', owner.token, { name: 'to-revoke' });
    expect(minted.status, minted.text).toBe(201);
    const token = minted.body.token as string;
    // B has verified (and cached the signature of) the token before it is revoked.
    expect((await call(B(), 'GET', '/v1/me', token)).status).toBe(200);

    const revoked = await call(A(), 'DELETE', `/v1/tokens/${minted.body.id}`, owner.token);
    expect(revoked.status, revoked.text).toBe(204);
    const start = Date.now();
    let last: Answer;
    do {
      last = await call(B(), 'GET', '/v1/me', token);
      if (last.status === 401) break;
      await new Promise((r) => setTimeout(r, 500));
    } while (Date.now() - start < 5_000);
    expect(last.status, `B still accepts the revoked token after ${Date.now() - start} ms: ${last.text}`).toBe(401);
    expect(last.body.reason).toBe('token_revoked');
    expect(last.headers.get('www-authenticate')).toBe('Bearer realm="sightline", error="invalid_token"');
    expect((await call(A(), 'GET', '/v1/me', token)).status).toBe(401);
  });

  it("a role change through A applies on B to the user's existing token", async () => {
    const project = await call(A(), 'POST', '/v1/projects', owner.token, { name: `roles-${suffix}` });
    expect(project.status, project.text).toBe(201);
    const write = () =>
      call(B(), 'POST', `/v1/projects/${project.body.id}/runs`, member.token, { name: 'ChatOpenAI', kind: 'llm', startTime: '2026-11-02T10:00:00.000Z' });
    const before = await write();
    expect(before.status, before.text).toBe(201);

    const demoted = await call(A(), 'PATCH', `/v1/organization/members/${member.userId}`, owner.token, { role: 'viewer' });
    expect(demoted.status, demoted.text).toBe(200);
    expect(demoted.body.role).toBe('viewer');

    const after = await write();
    expect(after.status, after.text).toBe(403);
    expect(after.body.type).toMatch(/\/forbidden$/);
    expect(after.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await call(B(), 'GET', '/v1/me', member.token)).body.role).toBe('viewer');
    expect((await call(B(), 'GET', `/v1/projects/${project.body.id}/runs`, member.token)).status).toBe(200);
  });

  it(`the rate limit is shared: ${RATE_LIMIT} requests split across A and B use up one budget, the next one is 429 on either`, async () => {
    const minted = await call(A(), 'POST', '/v1/tokens', owner.token, { name: 'rate' });
    expect(minted.status, minted.text).toBe(201);
    const token = minted.body.token as string;
    // Keep the burst inside one minute, so that Remaining falls by exactly one per request (past a minute
    // boundary the previous minute's requests start to fade out of the sliding window).
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 250));

    for (let i = 1; i <= RATE_LIMIT; i++) {
      const instance = i % 2 === 1 ? A() : B();
      const res = await call(instance, 'GET', '/v1/me', token);
      expect(res.status, `request ${i} on ${instance.name}: ${res.text}`).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(RATE_LIMIT));
      // One counter for both instances: the remaining budget falls by one whichever answers.
      expect(res.headers.get('ratelimit-remaining'), `request ${i} on ${instance.name}`).toBe(String(RATE_LIMIT - i));
    }
    for (const instance of [A(), B()]) {
      const res = await call(instance, 'GET', '/v1/me', token);
      expect(res.status, `${instance.name}: ${res.text}`).toBe(429);
      expect(res.body.type).toMatch(/\/rate-limited$/);
      // The rest of this minute, plus the 2 s (60 s / 30) this minute's requests take to fade by one.
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 62, String(res.headers.get('retry-after'))).toBe(true);
      expect(res.headers.get('ratelimit-reset')).toBe(res.headers.get('retry-after'));
    }
    // Another credential is unaffected.
    expect((await call(B(), 'GET', '/v1/me', owner.token)).status).toBe(200);
  });
});
