import { afterAll, beforeAll, describe } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Role } from '../../src/auth/permissions.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Dialect } from '../../src/db/dialect.js';
import type { Database } from '../../src/db/schema.js';
import type { App } from '../../src/deps.js';
import { ensureOrganization, ensureUser, setMembership } from '../../src/features/organizations/organizations.repo.js';
import { createProject } from '../../src/features/projects/projects.repo.js';
import { ingestRuns } from '../../src/features/runs/runs.ingest.js';
import { issuePersonalAccessToken } from '../../src/features/tokens/tokens.repo.js';
import { TokenService } from '../../src/auth/tokens.js';
import { SessionService, sessionCookieName } from '../../src/auth/sessions.js';
import { manualClock, systemClock, type Clock } from '../../src/lib/clock.js';
import { Keyring } from '../../src/lib/keys.js';
import type { Kysely } from 'kysely';
import { createTestDatabase, dialects, type TestDatabase } from './storage.js';
import { queueEvaluations } from '../../src/features/evaluators/evaluators.sampling.js';

export { dialects };

export const PUBLIC_URL = 'http://sightline.test';
export const PROBLEM_BASE = `${PUBLIC_URL}/problems`;

export function testConfig(overrides: Record<string, string> = {}): Config {
  // Suites send thousands of requests with one token: rate limits are exercised by their own tests.
  return loadConfig({
    SIGHTLINE_PUBLIC_URL: PUBLIC_URL,
    LOG_LEVEL: 'silent',
    SIGHTLINE_RATE_LIMIT: '10000000',
    SIGHTLINE_TOKEN_MINT_RATE_LIMIT: '10000000',
    // Requests still take their turns in the work queue (8 at once, one let in per turn of the loop),
    // but a suite's burst of concurrent calls on a busy machine is not refused for waiting: the refusal
    // is the shedding suite's to test, and the real-process suites run with the default.
    SIGHTLINE_MAX_QUEUE_MS: '60000',
    ...overrides,
  });
}

export interface Caller {
  userId: string;
  organizationId: string;
  role: Role;
  token: string;
  tokenId: string;
}

let sequence = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(sequence++).toString(36)}`;

/** Factories over the real repositories (never mocks of our own storage). */
export class Factories {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
  ) {}

  async org(name = unique('org')) {
    return ensureOrganization(this.db, name, 'enterprise', this.clock.now());
  }

  /** A user with a role in an organization (a new one unless given), and a personal access token. */
  async caller(options: { role?: Role; organizationId?: string; expiresInDays?: number; email?: string } = {}): Promise<Caller> {
    const now = this.clock.now();
    const organizationId = options.organizationId ?? (await this.org()).id;
    const role = options.role ?? 'owner';
    const user = await ensureUser(this.db, options.email ?? `${unique('user')}@example.test`, 'Test User', now);
    await setMembership(this.db, organizationId, user.id, role, now);
    const { row, token } = await issuePersonalAccessToken(
      this.db,
      this.tokens,
      { organizationId, userId: user.id, name: 'test', expiresInDays: options.expiresInDays ?? 90 },
      now,
    );
    return { userId: user.id, organizationId, role, token, tokenId: row.id };
  }

  /**
   * A signed-in dashboard session (a real session row, as /auth/callback creates). `cookie` is the
   * Cookie header value; state-changing requests with it also need `Origin: PUBLIC_URL`.
   */
  async session(options: { userId: string; organizationId: string; publicUrl?: string }): Promise<{ id: string; cookie: string }> {
    const sessions = new SessionService(this.db, this.tokens, { sessionIdleMinutes: 720, sessionAbsoluteHours: 168 }, this.clock);
    const { secret, row } = await sessions.create(options.userId, options.organizationId);
    return { id: row.id, cookie: `${sessionCookieName(options.publicUrl ?? PUBLIC_URL)}=${secret}` };
  }

  async project(organizationId: string, name = unique('project')) {
    return createProject(this.db, organizationId, { name }, this.clock.now());
  }

  /** Creates n runs through the real ingest path; `each(i)` may override fields. */
  async runs(projectId: string, n: number, each: (i: number) => Record<string, unknown> = () => ({})) {
    const base = Date.parse('2026-11-01T00:00:00.000Z');
    const raws = Array.from({ length: n }, (_, i) => ({
      name: 'ChatOpenAI',
      kind: 'llm',
      startTime: new Date(base + i * 1000).toISOString(),
      ...each(i),
    }));
    const ids: string[] = [];
    for (let i = 0; i < raws.length; i += 1000) {
      const results = await ingestRuns(this.db, projectId, raws.slice(i, i + 1000), this.clock.now(), (k) => `/runs/${k}`, queueEvaluations);
      for (const r of results) {
        if (r.status === 'rejected') throw new Error(`factory run rejected: ${r.problem.detail} ${JSON.stringify(r.problem.errors)}`);
        ids.push(r.id);
      }
    }
    return ids;
  }
}

export interface TestContext {
  dialect: Dialect;
  app: App;
  database: TestDatabase;
  config: Config;
  clock: Clock;
  make: Factories;
  /** `app.inject` with a bearer token (or none). */
  request(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'OPTIONS' | 'HEAD',
    url: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string>; payload?: string },
  ): Promise<LightMyRequestResponse>;
}

export interface HarnessOptions {
  clock?: Clock;
  env?: Record<string, string>;
}

/**
 * Runs a suite once per engine, each on a fresh migrated database with its own app.
 * The context's fields are filled in `beforeAll`; read them inside tests.
 */
export function describeEachDialect(name: string, body: (ctx: TestContext) => void, options: HarnessOptions = {}): void {
  for (const dialect of dialects) {
    describe(`${name} [${dialect}]`, () => {
      const ctx = { dialect } as TestContext;
      beforeAll(async () => {
        ctx.database = await createTestDatabase(dialect);
        ctx.config = testConfig(options.env);
        ctx.clock = options.clock ?? systemClock;
        ctx.app = await buildApp({ config: ctx.config, storage: ctx.database.storage, clock: ctx.clock });
        await ctx.app.ready();
        const keys = new Keyring(ctx.database.storage.db, ctx.clock);
        await keys.init();
        ctx.make = new Factories(ctx.database.storage.db, new TokenService(ctx.database.storage.db, keys, ctx.config, ctx.clock), ctx.clock);
        ctx.request = (method, url, opts = {}) => {
          const headers: Record<string, string> = { ...(opts.headers ?? {}) };
          if (opts.token) headers.authorization = `Bearer ${opts.token}`;
          if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
          return ctx.app.inject({ method, url, headers, payload: opts.payload ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
        };
      }, 60_000);
      afterAll(async () => {
        await ctx.app?.close();
        await ctx.database?.destroy();
      });
      body(ctx);
    });
  }
}

export { manualClock };

/**
 * What the problem checks read of a response: an `inject` response, or an answer read off a socket
 * (`shedding.test.ts`, `bad-input.headers.test.ts`) given in the same shape.
 */
export type ProblemResponse = Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body'> & { json(): unknown };

/** Asserts a problem response: status, media type, type URI and (optionally) detail. Returns the body. */
export function expectProblem(response: ProblemResponse, status: number, slug: string, detail?: string): Record<string, unknown> {
  const body = response.json() as Record<string, unknown>;
  const summary = `${response.statusCode} ${response.body.slice(0, 300)}`;
  if (response.statusCode !== status) throw new Error(`expected ${status} ${slug}, got ${summary}`);
  if (!String(response.headers['content-type']).startsWith('application/problem+json'))
    throw new Error(`expected application/problem+json, got ${response.headers['content-type']}: ${summary}`);
  if (body.type !== `${PROBLEM_BASE}/${slug}`) throw new Error(`expected type ${PROBLEM_BASE}/${slug}, got ${summary}`);
  if (body.status !== status || typeof body.title !== 'string' || typeof body.detail !== 'string') throw new Error(`malformed problem: ${summary}`);
  if (detail !== undefined && body.detail !== detail) throw new Error(`expected detail ${JSON.stringify(detail)}, got ${summary}`);
  return body;
}
