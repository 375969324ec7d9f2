/**
 * The pagination contract (README, Using the API: pagination), driven through every list endpoint.
 *
 * Each list endpoint is one descriptor in `listEndpoints` below: how to make a fresh parent whose
 * list is empty, how to put rows with chosen sort keys into it, how to add one through the public API,
 * how to remove one, and how to read an item's sort key and id. Every rule is then checked against
 * every descriptor, on every engine. A new list endpoint gets the whole suite by adding one descriptor.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/auth/permissions.js';
import { TokenService } from '../src/auth/tokens.js';
import { createInvitation } from '../src/features/organizations/invitations.repo.js';
import { ensureUser, setMembership } from '../src/features/organizations/organizations.repo.js';
import { createProject } from '../src/features/projects/projects.repo.js';
import { createPrompt } from '../src/features/prompts/prompts.repo.js';
import { issuePersonalAccessToken } from '../src/features/tokens/tokens.repo.js';
import { newId } from '../src/lib/ids.js';
import { Keyring } from '../src/lib/keys.js';
import { describeEachDialect, expectProblem, PROBLEM_BASE, PUBLIC_URL, type TestContext } from './helpers/harness.js';

// ---------------------------------------------------------------------------------------------
// Contract constants (README, Using the API: pagination and errors)
// ---------------------------------------------------------------------------------------------

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;
const CURSOR_MALFORMED = 'Cursor is malformed.';
/** The one 400 every bad cursor gets (minus `instance`, which names the request). */
const MALFORMED_BODY = {
  type: `${PROBLEM_BASE}/validation`,
  title: 'Validation failed',
  status: 400,
  detail: CURSOR_MALFORMED,
  errors: [{ parameter: 'cursor', detail: CURSOR_MALFORMED }],
};

/** Seeded sort keys live in 2020, so anything the server stamps with "now" lands at the head. */
const BASE = Date.parse('2020-01-01T00:00:00.000Z');
const SECOND = 1000;
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// ---------------------------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------------------------

type Item = Record<string, unknown>;

interface Row {
  id: string;
  /** The sort key in epoch milliseconds. */
  key: number;
}

/** Who calls: a user with a role in an organization, holding a session JWT (so they own no PAT rows). */
interface Principal {
  organizationId: string;
  userId: string;
  token: string;
}

/** One list: its path and the principal that reads it. */
interface Parent {
  principal: Principal;
  path: string;
  projectId?: string;
  promptId?: string;
  monitorId?: string;
}

interface FilterPair {
  /** Query (without limit/cursor) the cursor is taken with. */
  from: string;
  /** Query the cursor is then replayed with. */
  to: string;
}

interface ListEndpointSpec {
  name: string;
  /** True when the list belongs to the calling user, so another member of the organization sees another list. */
  perUser: boolean;
  /** True when only admins may read the list (the other member who continues a walk is then an admin). */
  adminOnly?: boolean;
  /** A new parent with an empty list; for the given principal, or a brand-new one in a new organization. */
  fresh(principal?: Principal): Promise<Parent>;
  /** Another parent of the same kind in the same organization; absent when the organization itself is the parent. */
  sibling?(parent: Parent): Promise<Parent>;
  /** Rows with the given sort keys, through the factories/repositories; returned in input order. */
  insert(parent: Parent, keys: number[]): Promise<Row[]>;
  /** One new row through the public API (the server stamps it, so it lands at the head). */
  create(parent: Parent): Promise<Row>;
  /** Removes a row for good (through the API when there is a delete endpoint, else in the database). */
  remove(parent: Parent, id: string): Promise<void>;
  keyOf(item: Item): number;
  idOf(item: Item): string;
  /** Filter changes that must invalidate a cursor (seed rows match every `from`). */
  filterChanges: FilterPair[];
  /** Spellings of the same normalized filters, between which a cursor stays valid. */
  filterEquivalents: FilterPair[];
}

interface ListEndpoint extends ListEndpointSpec {
  /** A fresh parent with n rows; the keys are a permutation so insertion order is not key order. */
  seed(n: number, keyAt?: (i: number, n: number) => number): Promise<{ parent: Parent; rows: Row[] }>;
}

const permutedKey = (i: number, n: number) => BASE + ((i * 7919) % n) * SECOND;

function defineList(spec: ListEndpointSpec): ListEndpoint {
  return {
    ...spec,
    async seed(n, keyAt = permutedKey) {
      const parent = await spec.fresh();
      const rows = await spec.insert(
        parent,
        Array.from({ length: n }, (_, i) => keyAt(i, n)),
      );
      return { parent, rows };
    },
  };
}

let sequence = 0;
const uniq = (prefix: string) => `${prefix}-${process.pid}-${(sequence++).toString(36)}`;
const iso = (ms: number) => new Date(ms).toISOString();

const COOKIE = 'cookie:';

/**
 * `ctx.request`, except that a principal's credential is its dashboard session: the cookie, with the
 * dashboard's own Origin (state-changing cookie requests need it). Sessions, not PATs, so that a new
 * user's token lists start empty.
 */
function requester(ctx: TestContext): TestContext['request'] {
  return (method, url, opts = {}) => {
    const { token, ...rest } = opts;
    if (!token?.startsWith(COOKIE)) return ctx.request(method, url, opts);
    return ctx.request(method, url, { ...rest, headers: { ...(rest.headers ?? {}), cookie: token.slice(COOKIE.length), origin: PUBLIC_URL } });
  };
}

function listEndpoints(ctx: TestContext) {
  const db = () => ctx.database.storage.db;
  let sessionService: TokenService | undefined;
  async function sessions(): Promise<TokenService> {
    if (!sessionService) {
      const keys = new Keyring(db(), ctx.clock);
      await keys.init();
      sessionService = new TokenService(db(), keys, ctx.config, ctx.clock);
    }
    return sessionService;
  }

  /** A user (new unless given) with a role in an organization (new unless given), signed in with a session JWT. */
  async function principal(options: { organizationId?: string; userId?: string; role?: Role } = {}): Promise<Principal> {
    const now = ctx.clock.now();
    const organizationId = options.organizationId ?? (await ctx.make.org()).id;
    const userId = options.userId ?? (await ensureUser(db(), `${uniq('pager')}@example.test`, 'Pager', now)).id;
    await setMembership(db(), organizationId, userId, options.role ?? 'owner', now);
    const { cookie } = await ctx.make.session({ userId, organizationId });
    return { organizationId, userId, token: `${COOKIE}${cookie}` };
  }

  const send = requester(ctx);

  async function created(res: LightMyRequestResponse): Promise<Item> {
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Item;
  }

  const runs = defineList({
    name: 'runs',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      return { principal: who, path: `/v1/projects/${project.id}/runs`, projectId: project.id };
    },
    async sibling(parent) {
      return runs.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const ids = await ctx.make.runs(parent.projectId!, keys.length, (i) => ({ startTime: iso(keys[i]!), tags: ['a', 'b'], metadata: { x: '1', y: 2 } }));
      return ids.map((id, i) => ({ id, key: keys[i]! }));
    },
    async create(parent) {
      const run = await created(
        await send('POST', parent.path, { token: parent.principal.token, body: { name: 'api-run', kind: 'llm', startTime: new Date().toISOString() } }),
      );
      return { id: run.id as string, key: Date.parse(run.startTime as string) };
    },
    async remove(parent, id) {
      await db().deleteFrom('run_tags').where('project_id', '=', parent.projectId!).where('run_id', '=', id).execute();
      const result = await db().deleteFrom('runs').where('project_id', '=', parent.projectId!).where('id', '=', id).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.startTime as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'status=running' },
      { from: 'status=running', to: 'status=succeeded' },
      { from: 'status=running', to: '' },
      { from: 'kind=llm', to: 'kind=chain' },
      { from: 'tag=a', to: 'tag=b' },
      { from: 'tag=a', to: 'tag=a&tag=b' },
      { from: 'metadata.x=1', to: 'metadata.x=2' },
      { from: 'metadata.x=1', to: 'metadata.y=2' },
      { from: 'metadata.x=1', to: 'metadata.x=1&metadata.y=2' },
    ],
    filterEquivalents: [
      { from: 'tag=a&tag=b', to: 'tag=b&tag=a' },
      { from: 'status=running&metadata.x=1', to: 'metadata.x=1&status=running' },
    ],
  });

  const projects = defineList({
    name: 'projects',
    perUser: false,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/projects' };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const row = await createProject(db(), parent.principal.organizationId, { name: uniq('proj') }, key);
        rows.push({ id: row.id, key: row.created_at });
      }
      return rows;
    },
    async create(parent) {
      const project = await created(await send('POST', '/v1/projects', { token: parent.principal.token, body: { name: uniq('proj-api') } }));
      return { id: project.id as string, key: Date.parse(project.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `/v1/projects/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'name=proj' },
      { from: 'name=proj', to: '' },
      { from: 'name=proj', to: 'name=roj' },
    ],
    filterEquivalents: [],
  });

  const tokens = defineList({
    name: 'tokens',
    perUser: true,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/tokens' };
    },
    async sibling(parent) {
      return tokens.fresh(await principal({ organizationId: parent.principal.organizationId }));
    },
    async insert(parent, keys) {
      const service = await sessions();
      const rows: Row[] = [];
      for (const key of keys) {
        const { row } = await issuePersonalAccessToken(
          db(),
          service,
          { organizationId: parent.principal.organizationId, userId: parent.principal.userId, name: uniq('tok'), expiresInDays: 90 },
          key,
        );
        rows.push({ id: row.id, key: row.created_at });
      }
      return rows;
    },
    async create(parent) {
      const token = await created(await send('POST', '/v1/tokens', { token: parent.principal.token, body: { name: uniq('tok-api') } }));
      return { id: token.id as string, key: Date.parse(token.createdAt as string) };
    },
    async remove(parent, id) {
      // DELETE /v1/tokens/{id} only revokes: the row stays listed. Removing the row is a database matter.
      const result = await db().deleteFrom('personal_access_tokens').where('id', '=', id).where('user_id', '=', parent.principal.userId).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  const invitations = defineList({
    name: 'organization invitations',
    perUser: false,
    adminOnly: true,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/organization/invitations' };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      const inviter = { ...parent.principal, role: 'owner' as const, credential: { kind: 'session' as const, id: 'x', expiresAt: 0 } };
      for (const key of keys) {
        const row = await createInvitation(db(), inviter, { email: `${uniq('invitee')}@example.test`, role: 'member' }, key);
        rows.push({ id: row.id, key: row.created_at });
      }
      return rows;
    },
    async create(parent) {
      const invitation = await created(
        await send('POST', '/v1/organization/invitations', {
          token: parent.principal.token,
          body: { email: `${uniq('invitee-api')}@example.test`, role: 'viewer' },
        }),
      );
      return { id: invitation.id as string, key: Date.parse(invitation.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `/v1/organization/invitations/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  /** Every member's tokens; principals sign in with session JWTs, so a new organization's list starts empty. */
  const organizationTokens = defineList({
    name: 'organization tokens',
    perUser: false,
    adminOnly: true,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/organization/tokens' };
    },
    async insert(parent, keys) {
      const service = await sessions();
      const member = await principal({ organizationId: parent.principal.organizationId, role: 'member' });
      const rows: Row[] = [];
      for (const key of keys) {
        const { row } = await issuePersonalAccessToken(
          db(),
          service,
          { organizationId: member.organizationId, userId: member.userId, name: uniq('tok'), expiresInDays: 90 },
          key,
        );
        rows.push({ id: row.id, key: row.created_at });
      }
      return rows;
    },
    async create(parent) {
      const token = await created(await send('POST', '/v1/tokens', { token: parent.principal.token, body: { name: uniq('tok-api') } }));
      return { id: token.id as string, key: Date.parse(token.createdAt as string) };
    },
    async remove(parent, id) {
      const result = await db()
        .deleteFrom('personal_access_tokens')
        .where('id', '=', id)
        .where('organization_id', '=', parent.principal.organizationId)
        .executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  /** A prompt (with its version 1) of the principal's organization, created at `at`, through the repository. */
  async function newPrompt(who: Principal, at: number = ctx.clock.now()) {
    return createPrompt(db(), { organizationId: who.organizationId, userId: who.userId }, { name: uniq('prompt'), template: 'Hi {{name}}' }, at);
  }

  const prompts = defineList({
    name: 'prompts',
    perUser: false,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/prompts' };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const row = await newPrompt(parent.principal, key);
        // Both labels on every seeded prompt, so seed rows match every `from` filter below.
        await db()
          .insertInto('prompt_labels')
          .values(['production', 'staging'].map((label) => ({ prompt_id: row.id, label, version: 1, updated_by: parent.principal.userId, updated_at: key })))
          .execute();
        rows.push({ id: row.id, key: row.created_at });
      }
      return rows;
    },
    async create(parent) {
      const prompt = await created(await send('POST', '/v1/prompts', { token: parent.principal.token, body: { name: uniq('prompt-api'), template: 'x' } }));
      return { id: prompt.id as string, key: Date.parse(prompt.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `/v1/prompts/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'name=prompt' },
      { from: 'name=prompt', to: '' },
      { from: 'name=prompt', to: 'name=rompt' },
      { from: '', to: 'label=production' },
      { from: 'label=production', to: '' },
      { from: 'label=production', to: 'label=staging' },
      { from: 'label=production', to: 'label=production&name=prompt' },
      { from: 'name=prompt&label=production', to: 'name=prompt&label=staging' },
    ],
    filterEquivalents: [{ from: 'name=prompt&label=production', to: 'label=production&name=prompt' }],
  });

  /**
   * Versions are sorted on their number, which the server assigns: a row "with sort key k" is a version
   * numbered in k's second-bucket (1000 numbers per second after BASE), after the versions already there,
   * so keys keep their order (head stays head, middle stays middle) and ties become neighbouring numbers.
   * The item's sort key is its version number; its id (unique within the list) is the number as text.
   * A number is never issued twice, even after its version was removed (a row id is never reused).
   */
  const issued = new Map<string, number>();
  const issue = (promptId: string, version: number) => {
    const slot = `${promptId}:${Math.floor((version - 1) / 1000)}`;
    issued.set(slot, Math.max(issued.get(slot) ?? 0, version));
  };
  const versions = defineList({
    name: 'prompt versions',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const prompt = await newPrompt(who);
      // An empty list: version 1 removed, so the next one the API creates follows whatever is seeded.
      await db().deleteFrom('prompt_versions').where('prompt_id', '=', prompt.id).execute();
      await db().updateTable('prompts').set({ latest_version: 0 }).where('id', '=', prompt.id).execute();
      return { principal: who, path: `/v1/prompts/${prompt.id}/versions`, promptId: prompt.id };
    },
    async sibling(parent) {
      return versions.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const bucket = Math.floor((key - BASE) / SECOND) * 1000;
        const top = await db()
          .selectFrom('prompt_versions')
          .select((eb) => eb.fn.max('version').as('max'))
          .where('prompt_id', '=', parent.promptId!)
          .where('version', '>', bucket)
          .where('version', '<=', bucket + 999)
          .executeTakeFirst();
        const version = Math.max(bucket, Number(top?.max ?? bucket), issued.get(`${parent.promptId!}:${bucket / 1000}`) ?? bucket) + 1;
        issue(parent.promptId!, version);
        await db()
          .insertInto('prompt_versions')
          .values({
            prompt_id: parent.promptId!,
            version,
            template: JSON.stringify(`v${version}`),
            variables: '[]',
            config: '{}',
            message: '',
            created_by: parent.principal.userId,
            created_at: key,
          })
          .execute();
        const prompt = await db().selectFrom('prompts').select('latest_version').where('id', '=', parent.promptId!).executeTakeFirstOrThrow();
        if (version > prompt.latest_version) await db().updateTable('prompts').set({ latest_version: version }).where('id', '=', parent.promptId!).execute();
        rows.push({ id: String(version), key: version });
      }
      return rows;
    },
    async create(parent) {
      const version = await created(await send('POST', parent.path, { token: parent.principal.token, body: { template: 'api {{x}}' } }));
      issue(parent.promptId!, version.version as number);
      return { id: String(version.version), key: version.version as number };
    },
    async remove(parent, id) {
      // Versions are immutable and never deleted through the API.
      const result = await db().deleteFrom('prompt_versions').where('prompt_id', '=', parent.promptId!).where('version', '=', Number(id)).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => item.version as number,
    idOf: (item) => String(item.version),
    filterChanges: [],
    filterEquivalents: [],
  });

  const labelHistory = defineList({
    name: 'prompt label history',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const prompt = await newPrompt(who);
      return { principal: who, path: `/v1/prompts/${prompt.id}/label-history`, promptId: prompt.id };
    },
    async sibling(parent) {
      return labelHistory.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const id = newId('ple', key);
        await db()
          .insertInto('prompt_label_events')
          .values({ id, prompt_id: parent.promptId!, label: 'production', from_version: null, to_version: 1, actor: parent.principal.userId, created_at: key })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      // A new label each time: every PUT records exactly one event.
      const label = uniq('lbl');
      const res = await send('PUT', `/v1/prompts/${parent.promptId}/labels/${label}`, { token: parent.principal.token, body: { version: 1 } });
      expect(res.statusCode, res.body).toBe(200);
      const event = await db()
        .selectFrom('prompt_label_events')
        .select(['id', 'created_at'])
        .where('prompt_id', '=', parent.promptId!)
        .where('label', '=', label)
        .executeTakeFirstOrThrow();
      return { id: event.id, key: Number(event.created_at) };
    },
    async remove(parent, id) {
      // The history is append-only: removing an event is a database matter.
      const result = await db().deleteFrom('prompt_label_events').where('prompt_id', '=', parent.promptId!).where('id', '=', id).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  // ------------------------------------------------------------------ monitors

  /**
   * A monitor through the API: `count < 1` over 5 minutes on a project without runs, so it alerts from
   * its creation on (its state then changes only when it is paused or resumed).
   */
  async function newMonitor(who: Principal, projectId: string, body: Record<string, unknown> = {}): Promise<Item> {
    return created(
      await send('POST', `/v1/projects/${projectId}/monitors`, {
        token: who.token,
        body: { name: uniq('mon'), metric: 'count', window: '5m', threshold: { op: '<', value: 1 }, ...body },
      }),
    );
  }

  /** Pauses the monitor if it runs, resumes it if paused: each toggle records exactly one event. */
  async function toggle(parent: Parent): Promise<void> {
    const row = await db().selectFrom('monitors').select('enabled').where('id', '=', parent.monitorId!).executeTakeFirstOrThrow();
    const res = await send('PATCH', `/v1/projects/${parent.projectId}/monitors/${parent.monitorId}`, {
      token: parent.principal.token,
      body: { enabled: Number(row.enabled) !== 1 },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** The one row a step added to a monitor's table (by difference, so ties in time cannot confuse it). */
  async function addedRow(table: 'monitor_events' | 'webhook_attempts', monitorId: string, step: () => Promise<void>): Promise<Row> {
    const ids = async () => db().selectFrom(table).select(['id', 'created_at']).where('monitor_id', '=', monitorId).execute();
    const before = new Set((await ids()).map((r) => r.id));
    await step();
    const added = (await ids()).filter((r) => !before.has(r.id));
    expect(added, `${table}: one new row`).toHaveLength(1);
    return { id: added[0]!.id, key: Number(added[0]!.created_at) };
  }

  const monitors = defineList({
    name: 'monitors',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      return { principal: who, path: `/v1/projects/${project.id}/monitors`, projectId: project.id };
    },
    async sibling(parent) {
      return monitors.fresh(parent.principal);
    },
    async insert(parent, keys) {
      // Enabled, no data yet and not due: seed rows match every `from` filter below.
      const rows: Row[] = [];
      for (const key of keys) {
        const id = newId('mon', key);
        await db()
          .insertInto('monitors')
          .values({
            id,
            project_id: parent.projectId!,
            name: uniq('mon'),
            description: '',
            filter: '{}',
            metric: 'count',
            window_size: '1h',
            threshold_op: null,
            threshold_value: null,
            enabled: 1,
            state: 'no_data',
            last_value: null,
            last_count: null,
            last_evaluated_at: null,
            webhook_urls: '[]',
            webhook_secret: 'not-a-sealed-secret',
            next_evaluation_at: Number.MAX_SAFE_INTEGER,
            lease_owner: null,
            lease_until: null,
            created_at: key,
            updated_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      const monitor = await created(
        await send('POST', parent.path, { token: parent.principal.token, body: { name: uniq('mon-api'), metric: 'count', window: '1h' } }),
      );
      return { id: monitor.id as string, key: Date.parse(monitor.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `${parent.path}/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'state=no_data' },
      { from: 'state=no_data', to: 'state=alerting' },
      { from: 'state=no_data', to: '' },
      { from: '', to: 'enabled=true' },
      { from: 'enabled=true', to: 'enabled=false' },
      { from: 'enabled=true', to: '' },
      { from: 'state=no_data', to: 'state=no_data&enabled=true' },
    ],
    filterEquivalents: [{ from: 'state=no_data&enabled=true', to: 'enabled=true&state=no_data' }],
  });

  const monitorEvents = defineList({
    name: 'monitor events',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      const monitor = await newMonitor(who, project.id);
      // An empty list: the event of its first evaluation removed.
      await db()
        .deleteFrom('monitor_events')
        .where('monitor_id', '=', monitor.id as string)
        .execute();
      return { principal: who, path: `/v1/projects/${project.id}/monitors/${monitor.id}/events`, projectId: project.id, monitorId: monitor.id as string };
    },
    async sibling(parent) {
      // Another monitor of the same project: the cursor is bound to the monitor, not only the project.
      const monitor = await newMonitor(parent.principal, parent.projectId!);
      await db()
        .deleteFrom('monitor_events')
        .where('monitor_id', '=', monitor.id as string)
        .execute();
      return { ...parent, path: `/v1/projects/${parent.projectId}/monitors/${monitor.id}/events`, monitorId: monitor.id as string };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const id = newId('mev', key);
        await db()
          .insertInto('monitor_events')
          .values({
            id,
            monitor_id: parent.monitorId!,
            project_id: parent.projectId!,
            from_state: 'no_data',
            to_state: 'alerting',
            value: 0,
            count: 0,
            threshold_op: '<',
            threshold_value: 1,
            window_start: key - 300_000,
            window_end: key,
            reason: 'evaluated',
            created_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      // Pausing (alerting → no_data) or resuming (no_data → alerting): one event, stamped now.
      return addedRow('monitor_events', parent.monitorId!, () => toggle(parent));
    },
    async remove(parent, id) {
      // Events are a history the API never deletes one of: removing one is a database matter.
      const result = await db().deleteFrom('monitor_events').where('monitor_id', '=', parent.monitorId!).where('id', '=', id).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  /** A webhook receiver on loopback that accepts every delivery (the suite allows private targets). */
  let receiver: Promise<{ server: Server; url: string }> | null = null;
  function webhookReceiver() {
    receiver ??= new Promise((resolve, reject) => {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.statusCode = 204;
          res.end();
        });
      });
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }));
    });
    return receiver;
  }
  afterAll(async () => {
    if (!receiver) return;
    const { server } = await receiver;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function deliveriesOf(who: Principal, projectId: string): Promise<Parent> {
    const monitor = await newMonitor(who, projectId);
    // Webhooks added after the first evaluation: no delivery until the monitor's state next changes.
    const res = await send('PATCH', `/v1/projects/${projectId}/monitors/${monitor.id}`, {
      token: who.token,
      body: { webhookUrls: [(await webhookReceiver()).url] },
    });
    expect(res.statusCode, res.body).toBe(200);
    return { principal: who, path: `/v1/projects/${projectId}/monitors/${monitor.id}/deliveries`, projectId, monitorId: monitor.id as string };
  }

  const monitorDeliveries = defineList({
    name: 'monitor deliveries',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      return deliveriesOf(who, (await ctx.make.project(who.organizationId)).id);
    },
    async sibling(parent) {
      return deliveriesOf(parent.principal, parent.projectId!);
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const id = newId('wha', key);
        await db()
          .insertInto('webhook_attempts')
          .values({
            id,
            delivery_id: newId('whd', key),
            monitor_id: parent.monitorId!,
            event_id: newId('mev', key),
            url: 'https://hooks.example.test/sightline',
            attempt: 1,
            outcome: 'succeeded',
            response_status: 204,
            latency_ms: 12,
            error: null,
            next_attempt_at: null,
            created_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      // A state change queues a delivery; the delivery worker's attempt is the new row, stamped now.
      return addedRow('webhook_attempts', parent.monitorId!, async () => {
        await toggle(parent);
        await ctx.app.monitoring.deliverDue();
      });
    },
    async remove(parent, id) {
      // Attempts are a log the API never deletes one of: removing one is a database matter.
      const result = await db().deleteFrom('webhook_attempts').where('monitor_id', '=', parent.monitorId!).where('id', '=', id).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  return {
    lists: [
      runs,
      projects,
      tokens,
      invitations,
      organizationTokens,
      prompts,
      versions,
      labelHistory,
      monitors,
      monitorEvents,
      monitorDeliveries,
    ] as ListEndpoint[],
    runs,
    principal,
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers: pages, walks, problems
// ---------------------------------------------------------------------------------------------

interface PageBody {
  items: Item[];
  nextCursor?: string | null;
  limit: number;
}

/** Joins query parts, dropping empty ones; '' when nothing is left. */
function qs(...parts: Array<string | null | undefined | false>): string {
  const joined = parts.filter((p): p is string => typeof p === 'string' && p !== '').join('&');
  return joined === '' ? '' : `?${joined}`;
}

const cursorParam = (cursor: string | null | undefined) => (cursor === null || cursor === undefined ? null : `cursor=${encodeURIComponent(cursor)}`);

/** Newest first: the sort key descending, then the id descending (bytewise). */
function compareDesc(a: Row, b: Row): number {
  if (a.key !== b.key) return b.key - a.key;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const sortDesc = (rows: Row[]) => [...rows].sort(compareDesc);

function nextOf(page: PageBody): string | null {
  return page.nextCursor ?? null;
}

function checkEnvelope(body: unknown, where: string): PageBody {
  const page = body as PageBody;
  expect(Array.isArray(page.items), `${where}: items is an array`).toBe(true);
  expect(Number.isInteger(page.limit), `${where}: limit is an integer`).toBe(true);
  // The envelope is items, nextCursor and limit: never a total count.
  for (const key of Object.keys(page)) expect(['items', 'nextCursor', 'limit'], `${where}: unexpected envelope field ${key}`).toContain(key);
  if (page.nextCursor !== undefined && page.nextCursor !== null) {
    expect(typeof page.nextCursor, `${where}: nextCursor is a string`).toBe('string');
    expect(page.nextCursor.length, `${where}: nextCursor is not empty`).toBeGreaterThan(0);
  }
  return page;
}

/** Asserts the one malformed-cursor problem: status, media type, type, title, detail, and nothing else. */
function expectMalformed(res: LightMyRequestResponse, label: string): void {
  expect(res.statusCode, `${label}: ${res.statusCode} ${res.body.slice(0, 200)}`).toBe(400);
  expect(String(res.headers['content-type']), label).toMatch(/^application\/problem\+json/);
  const body = expectProblem(res, 400, 'validation', CURSOR_MALFORMED);
  expect(body.title, label).toBe('Validation failed');
  const { instance, ...rest } = body;
  void instance;
  expect(rest, label).toEqual(MALFORMED_BODY);
}

function rowsOf(ep: ListEndpoint, items: Item[]): Row[] {
  return items.map((item) => ({ id: ep.idOf(item), key: ep.keyOf(item) }));
}

function makeClient(ctx: TestContext) {
  const send = requester(ctx);
  async function getPage(parent: Parent, query: string, token: string = parent.principal.token): Promise<PageBody> {
    const res = await send('GET', `${parent.path}${query}`, { token });
    expect(res.statusCode, `GET ${parent.path}${query.slice(0, 120)} → ${res.body.slice(0, 300)}`).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    return checkEnvelope(res.json(), `${parent.path}${query.slice(0, 80)}`);
  }

  interface WalkOptions {
    /** Raw `limit` value for page i (undefined: omit the parameter). */
    limit?: (pageIndex: number) => string | undefined;
    filters?: string;
    token?: string;
    /** Runs after page i was fetched, before page i + 1. */
    between?: (pageIndex: number, page: PageBody) => Promise<void>;
    maxPages?: number;
  }

  /** Follows nextCursor from a cursorless first page to the end; returns every page. */
  async function walk(parent: Parent, options: WalkOptions = {}): Promise<PageBody[]> {
    const pages: PageBody[] = [];
    let cursor: string | null = null;
    const maxPages = options.maxPages ?? 500;
    for (let i = 0; ; i++) {
      if (i >= maxPages) throw new Error(`walk of ${parent.path} did not end within ${maxPages} pages`);
      const limit = options.limit?.(i);
      const page = await getPage(parent, qs(options.filters, limit === undefined ? null : `limit=${limit}`, cursorParam(cursor)), options.token);
      pages.push(page);
      cursor = nextOf(page);
      if (cursor === null) break;
      await options.between?.(i, page);
    }
    return pages;
  }

  return { getPage, walk };
}

/**
 * A complete, undisturbed walk: every row exactly once, newest first, each item carrying its exact sort
 * key, every page but the last exactly `limit` long, the last one ending with a null cursor and never
 * empty unless the whole list is.
 */
function expectCompleteWalk(ep: ListEndpoint, pages: PageBody[], rows: Row[], limit: number, label: string): void {
  const expected = sortDesc(rows);
  const seen = rowsOf(
    ep,
    pages.flatMap((p) => p.items),
  );
  expect(
    seen.map((r) => r.id),
    `${label}: ids in order, each once`,
  ).toEqual(expected.map((r) => r.id));
  expect(
    seen.map((r) => r.key),
    `${label}: sort keys round-trip exactly`,
  ).toEqual(expected.map((r) => r.key));
  expect(pages.length, `${label}: number of pages`).toBe(Math.max(1, Math.ceil(rows.length / limit)));
  pages.forEach((page, i) => {
    expect(page.limit, `${label}: page ${i} echoes the limit used`).toBe(limit);
    if (i < pages.length - 1) {
      expect(page.items.length, `${label}: page ${i} is full`).toBe(limit);
      expect(nextOf(page), `${label}: page ${i} has a cursor`).not.toBeNull();
    } else {
      expect(nextOf(page), `${label}: the last page has no cursor`).toBeNull();
      expect(page.items.length, `${label}: last page size`).toBeLessThanOrEqual(limit);
      if (rows.length > 0) expect(page.items.length, `${label}: no empty trailing page`).toBeGreaterThan(0);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

const SIZES = [0, 1, 24, 25, 26, 50, 51];
/** Raw `limit` value → the limit the server must use and echo. */
const LIMITS: Array<{ raw: string | undefined; used: number }> = [
  { raw: undefined, used: DEFAULT_LIMIT },
  { raw: '1', used: 1 },
  { raw: '25', used: 25 },
  { raw: '100', used: 100 },
  { raw: '500', used: MAX_LIMIT },
  { raw: '101', used: MAX_LIMIT },
  { raw: '0', used: 1 },
  { raw: '-1', used: 1 },
  { raw: '-25', used: 1 },
];

/** Not integers, or not one value: each is a 400 validation problem naming `limit`. */
const BAD_LIMITS: Array<{ label: string; query: string }> = [
  ...['abc', '1.5', '1e2', '%205', '5%20', '0x10', '', 'Infinity', 'NaN', '-', 'true', '1%2C5', '25abc', '%EF%BC%95' /* fullwidth 5 */].map((raw) => ({
    label: `limit=${raw}`,
    query: `limit=${raw}`,
  })),
  { label: 'repeated limit=5&limit=6', query: 'limit=5&limit=6' },
  { label: 'repeated limit=5&limit=5', query: 'limit=5&limit=5' },
];

describeEachDialect(
  'pagination contract',
  (ctx) => {
    const send = requester(ctx);
    const { lists, runs, principal } = listEndpoints(ctx);
    const { getPage, walk } = makeClient(ctx);

    /** The cursor after the first page of `limit` rows (the list must hold more than that). */
    async function firstCursor(parent: Parent, filters = '', limit = 1, token?: string): Promise<string> {
      const page = await getPage(parent, qs(filters, `limit=${limit}`), token);
      const cursor = nextOf(page);
      expect(cursor, `${parent.path} ${filters}: a first page with more to come`).not.toBeNull();
      return cursor!;
    }

    for (const ep of lists) {
      describe(`${ep.name}`, () => {
        // ---------------------------------------------------------------- full walks
        for (const n of SIZES) {
          it(`walks ${n} rows completely, in order, at every limit (default, 1, 25, 100, over-max, 0, negative)`, async () => {
            const { parent, rows } = await ep.seed(n);
            for (const { raw, used } of LIMITS) {
              const pages = await walk(parent, { limit: () => raw });
              expectCompleteWalk(ep, pages, rows, used, `${ep.name} N=${n} limit=${raw ?? '(default)'}`);
            }
          });
        }

        it('accepts a different limit on every page of one walk', async () => {
          const { parent, rows } = await ep.seed(51);
          const raws = ['3', '10', '1', '25', '0', '7', '500', '2'];
          const used = [3, 10, 1, 25, 1, 7, 100, 2];
          const pages = await walk(parent, { limit: (i) => raws[i % raws.length] });
          pages.forEach((page, i) => {
            expect(page.limit).toBe(used[i % used.length]);
            if (nextOf(page) !== null) expect(page.items).toHaveLength(used[i % used.length]!);
          });
          expect(pages.flatMap((p) => p.items).map(ep.idOf)).toEqual(sortDesc(rows).map((r) => r.id));
        });

        // ---------------------------------------------------------------- limit validation
        it('refuses a non-integer or repeated limit with a 400 validation problem', async () => {
          const { parent } = await ep.seed(2);
          for (const { label, query } of BAD_LIMITS) {
            for (const cursor of [null, await firstCursor(parent)]) {
              const res = await send('GET', `${parent.path}${qs(query, cursorParam(cursor))}`, { token: parent.principal.token });
              const body = expectProblem(res, 400, 'validation');
              expect(body.title, label).toBe('Validation failed');
              expect(body.errors, label).toEqual(expect.arrayContaining([expect.objectContaining({ parameter: 'limit' })]));
            }
          }
        });

        it("lists a junk cursor beside the query's other faults, and checks a real one once the rest is valid", async () => {
          const { parent } = await ep.seed(2);
          for (const junk of ['!!!', 'AAAA', 'x'.repeat(2000)]) {
            const res = await send('GET', `${parent.path}${qs('limit=abc&bogus=1', cursorParam(junk))}`, { token: parent.principal.token });
            const body = expectProblem(res, 400, 'validation', '3 problems with the request.');
            expect(body.errors).toEqual(
              expect.arrayContaining([
                expect.objectContaining({ parameter: 'limit' }),
                { parameter: 'bogus', detail: "Unknown field 'bogus'." },
                { parameter: 'cursor', detail: CURSOR_MALFORMED },
              ]),
            );
            expect(body.errors).toHaveLength(3);
          }
          // A well-formed cursor is bound to a valid query: with other faults only they are listed.
          const real = await firstCursor(parent);
          const res = await send('GET', `${parent.path}${qs('limit=abc', cursorParam(real))}`, { token: parent.principal.token });
          expect(expectProblem(res, 400, 'validation').errors).toEqual([expect.objectContaining({ parameter: 'limit' })]);
        });

        it('clamps every out-of-range integer to the nearest bound, however many digits it has', async () => {
          // "An integer outside the bounds is clamped to the nearest bound" (README, pagination).
          const { parent } = await ep.seed(2);
          const cases: Array<[raw: string, used: number]> = [
            ['999999999999999', MAX_LIMIT], // 15 digits
            ['9007199254740993', MAX_LIMIT], // 16 digits, above Number.MAX_SAFE_INTEGER
            ['99999999999999999999999', MAX_LIMIT],
            ['-999999999999999', 1],
            ['-99999999999999999999999', 1],
          ];
          const answers: Array<[string, number, unknown]> = [];
          for (const [raw] of cases) {
            const res = await send('GET', `${parent.path}?limit=${raw}`, { token: parent.principal.token });
            answers.push([raw, res.statusCode, res.statusCode === 200 ? res.json().limit : res.json().detail]);
          }
          expect(answers).toEqual(cases.map(([raw, used]) => [raw, 200, used]));
        });

        // ---------------------------------------------------------------- ties
        it('walks 200 rows with an identical sort key at limit 7, each exactly once', async () => {
          const { parent, rows } = await ep.seed(200, () => BASE);
          const pages = await walk(parent, { limit: () => '7' });
          expectCompleteWalk(ep, pages, rows, 7, `${ep.name} 200 ties`);
        });

        // ---------------------------------------------------------------- concurrent changes
        it('does not visit rows inserted at the head mid-walk; a restarted walk shows them', async () => {
          const { parent, rows } = await ep.seed(30);
          const added: Row[] = [];
          const pages = await walk(parent, {
            limit: () => '10',
            between: async (i) => {
              if (i === 0) {
                added.push(await ep.create(parent), await ep.create(parent));
                added.push(...(await ep.insert(parent, [BASE + 1_000_000 * SECOND])));
              }
              if (i === 1) added.push(await ep.create(parent));
            },
          });
          expect(added).toHaveLength(4);
          const seen = pages.flatMap((p) => p.items).map(ep.idOf);
          expect(seen, 'continuing sees exactly the rows that existed when the walk started').toEqual(sortDesc(rows).map((r) => r.id));
          for (const row of added) expect(seen).not.toContain(row.id);

          const restarted = await walk(parent, { limit: () => '10' });
          expectCompleteWalk(ep, restarted, [...rows, ...added], 10, `${ep.name} restarted`);
          const head = restarted[0]!.items.slice(0, added.length).map(ep.idOf);
          expect(new Set(head)).toEqual(new Set(added.map((r) => r.id)));
        });

        for (const ties of [false, true]) {
          it(`continues correctly when the row under the cursor is deleted${ties ? ' (all sort keys equal)' : ''}`, async () => {
            const { parent, rows } = await ep.seed(30, ties ? () => BASE : permutedKey);
            const order = sortDesc(rows);
            const deletedUnseen = new Set<string>();
            const deletedSeen = new Set<string>();
            const pages = await walk(parent, {
              limit: () => '7',
              between: async (i, page) => {
                // The row under the cursor: the last item of the page just read.
                const under = ep.idOf(page.items[page.items.length - 1]!);
                await ep.remove(parent, under);
                deletedSeen.add(under);
                if (i === 1) {
                  // Also the row right after the cursor, which the next page would have started with.
                  const next = order[(i + 1) * 7]!.id;
                  await ep.remove(parent, next);
                  deletedUnseen.add(next);
                }
              },
            });
            const seen = pages.flatMap((p) => p.items).map(ep.idOf);
            expect(new Set(seen).size, 'no duplicates').toBe(seen.length);
            expect(seen).toEqual(order.map((r) => r.id).filter((id) => !deletedUnseen.has(id)));
            expect(deletedSeen.size).toBeGreaterThan(2);
          });
        }

        it('property: random interleavings of inserts, deletes and page fetches never duplicate or skip a surviving row', async () => {
          const command = fc.oneof(
            { weight: 5, arbitrary: fc.record({ t: fc.constant('fetch' as const), limit: fc.integer({ min: 1, max: 6 }) }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('head' as const), n: fc.integer({ min: 1, max: 3 }) }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('middle' as const), at: fc.integer({ min: 0, max: 1000 }) }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), pick: fc.nat() }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('deleteUnderCursor' as const) }) },
          );
          const scenario = fc.record({ initial: fc.integer({ min: 0, max: 20 }), ties: fc.boolean(), commands: fc.array(command, { maxLength: 20 }) });

          await fc.assert(
            fc.asyncProperty(scenario, async ({ initial, ties, commands }) => {
              const keys = Array.from({ length: initial }, (_, i) => BASE + (ties ? Math.floor(i / 3) : (i * 7) % Math.max(initial, 1)) * SECOND);
              const { parent, rows } = await ep.seed(initial, (i) => keys[i]!);
              const present = new Map(rows.map((r) => [r.id, r.key]));
              let maxKey = Math.max(BASE, ...keys);
              const st = { started: false, done: false, cursor: null as string | null, last: null as Row | null };
              const mustSee = new Set<string>();
              const mustNotSee = new Set<string>();
              const seen = new Map<string, number>();

              const fetch = async (limit: number) => {
                if (st.done) return;
                if (!st.started) {
                  st.started = true;
                  for (const id of present.keys()) mustSee.add(id);
                }
                const page = await getPage(parent, qs(`limit=${limit}`, cursorParam(st.cursor)));
                expect(page.limit).toBe(limit);
                for (const item of page.items) {
                  const row = { id: ep.idOf(item), key: ep.keyOf(item) };
                  expect(present.get(row.id), `listed row ${row.id} exists with its key`).toBe(row.key);
                  expect(mustNotSee.has(row.id), `row ${row.id} must not be visited`).toBe(false);
                  expect(seen.has(row.id), `row ${row.id} visited twice`).toBe(false);
                  if (st.last) expect(compareDesc(st.last, row), 'the walk only moves forward').toBeLessThan(0);
                  seen.set(row.id, 1);
                  st.last = row;
                }
                st.cursor = nextOf(page);
                if (st.cursor === null) st.done = true;
                else expect(page.items).toHaveLength(limit);
              };
              const remove = async (id: string) => {
                await ep.remove(parent, id);
                present.delete(id);
                mustSee.delete(id);
                mustNotSee.add(id);
              };

              for (const cmd of commands) {
                if (cmd.t === 'fetch') await fetch(cmd.limit);
                else if (cmd.t === 'head') {
                  const headKeys = Array.from({ length: cmd.n }, (_, i) => maxKey + (i + 1) * SECOND);
                  maxKey = headKeys[headKeys.length - 1]!;
                  for (const row of await ep.insert(parent, headKeys)) {
                    present.set(row.id, row.key);
                    // Inserted at the head after the walk started: never visited by continuing (rule 3).
                    if (st.started) mustNotSee.add(row.id);
                  }
                } else if (cmd.t === 'middle') {
                  const key = BASE + Math.round(((maxKey - BASE) * cmd.at) / 1000 / SECOND) * SECOND;
                  for (const row of await ep.insert(parent, [key])) present.set(row.id, row.key);
                } else if (cmd.t === 'delete') {
                  const ids = [...present.keys()];
                  if (ids.length > 0) await remove(ids[cmd.pick % ids.length]!);
                } else if (st.last && present.has(st.last.id)) {
                  await remove(st.last.id);
                }
              }
              for (let guard = 0; !st.done; guard++) {
                expect(guard).toBeLessThan(200);
                await fetch(5);
              }
              for (const id of mustSee) expect(seen.has(id), `row ${id} present throughout was skipped`).toBe(true);
            }),
            { numRuns: 25 },
          );
        }, 120_000);

        // ---------------------------------------------------------------- malformed cursors
        it('answers every tampered, truncated, padded, oversized or random cursor with the one 400', async () => {
          const { parent } = await ep.seed(5);
          const real = await firstCursor(parent, '', 2);
          const bytes = Buffer.from(real, 'base64url');
          const bad = new Map<string, string>(); // label → cursor value (URL-encoded when sent)

          for (let i = 0; i < real.length; i++) {
            const at = B64URL.indexOf(real[i]!);
            expect(at, 'a cursor is base64url').toBeGreaterThanOrEqual(0);
            for (const shift of [1, 32]) {
              const flipped = real.slice(0, i) + B64URL[(at + shift) % 64] + real.slice(i + 1);
              bad.set(`flip ${i} by ${shift}`, flipped);
            }
          }
          for (const length of [
            1,
            2,
            3,
            4,
            8,
            16,
            22,
            23,
            24,
            32,
            44,
            Math.floor(real.length / 2),
            real.length - 22,
            real.length - 5,
            real.length - 4,
            real.length - 3,
            real.length - 2,
            real.length - 1,
          ]) {
            if (length > 0 && length < real.length) bad.set(`truncated to ${length}`, real.slice(0, length));
          }
          bad.set('first char dropped', real.slice(1));
          bad.set('first 4 chars dropped', real.slice(4));
          bad.set('extended by A', `${real}A`);
          bad.set('extended by AAAA', `${real}AAAA`);
          bad.set('doubled', real + real);
          bad.set('reversed', [...real].reverse().join(''));
          if (real.toUpperCase() !== real) bad.set('upper-cased', real.toUpperCase());
          if (real.toLowerCase() !== real) bad.set('lower-cased', real.toLowerCase());
          bad.set('padded =', `${real}=`);
          bad.set('padded ==', `${real}==`);
          bad.set('leading =', `=${real}`);
          // Identical to the real cursor when its bytes hold no '-'/'_' and need no padding: only then a distinct case.
          if (bytes.toString('base64') !== real) bad.set('standard base64 with padding', bytes.toString('base64'));
          bad.set('base64 alphabet +', `${real.slice(0, 10)}+${real.slice(11)}`);
          bad.set('base64 alphabet /', `${real.slice(0, 10)}/${real.slice(11)}`);
          for (const ch of ['.', ' ', '~', '*', '!', '\u00e9', '\u0000', '\n', '%', '\u{1F600}'])
            bad.set(`contains ${JSON.stringify(ch)}`, `${real.slice(0, 20)}${ch}${real.slice(20)}`);
          bad.set('trailing newline', `${real}\n`);
          bad.set('leading space', ` ${real}`);
          bad.set('10 KB of A', 'A'.repeat(10 * 1024));
          bad.set('10 KB of random base64url', randomBytes(7680).toString('base64url'));
          bad.set('real cursor repeated to 10 KB', real.repeat(Math.ceil(10_240 / real.length)));
          for (const size of [1, 2, 3, 16, 32, 33, 48, 64, bytes.length - 1, bytes.length, bytes.length + 1, 128, 256, 700]) {
            bad.set(`random ${size} bytes`, randomBytes(size).toString('base64url'));
          }
          // Random bodies behind the real version byte and key tag: well-formed framing, failing authentication.
          for (const size of [12 + 1 + 16, 12 + 40 + 16, bytes.length - 5, bytes.length - 4, 700]) {
            bad.set(`real header + ${size} random bytes`, Buffer.concat([bytes.subarray(0, 5), randomBytes(size)]).toString('base64url'));
          }
          // The real body under another version byte.
          for (const version of [0, 2, 255]) {
            const copy = Buffer.from(bytes);
            copy[0] = version;
            bad.set(`version byte ${version}`, copy.toString('base64url'));
          }
          for (const value of ['null', 'undefined', '0', '[]', '{}', 'true', 'eyJhbGciOiJub25lIn0', real.slice(0, 10)]) bad.set(`literal ${value}`, value);

          for (const [label, cursor] of bad) {
            expect(cursor, label).not.toBe(real);
            const res = await send('GET', `${parent.path}?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: parent.principal.token });
            expectMalformed(res, `${ep.name} ${label}`);
          }
          // Raw query spellings that cannot be produced by encoding a string.
          for (const raw of ['cursor=', 'cursor', 'cursor=%FF', 'cursor=%E9t%E9', 'cursor=%C3', 'cursor=+', `cursor=${real.slice(0, 30)}+${real.slice(31)}`]) {
            const res = await send('GET', `${parent.path}?limit=2&${raw}`, { token: parent.principal.token });
            expectMalformed(res, `${ep.name} raw ${raw.slice(0, 40)}`);
          }
          // The genuine cursor still works after all that.
          const page = await getPage(parent, qs('limit=2', cursorParam(real)));
          expect(page.items).toHaveLength(2);
        }, 60_000);

        // ---------------------------------------------------------------- cursors replayed elsewhere
        it("refuses a cursor replayed by another organization's caller on the same endpoint", async () => {
          const a = await ep.seed(3);
          const cursor = await firstCursor(a.parent);
          const b = await ep.seed(3);
          expectMalformed(
            await send('GET', `${b.parent.path}${qs('limit=1', cursorParam(cursor))}`, { token: b.parent.principal.token }),
            `${ep.name} other org`,
          );
          // The same user, signed in to another organization they belong to.
          const sameUser = await principal({ userId: a.parent.principal.userId });
          const elsewhere = await ep.fresh(sameUser);
          await ep.insert(elsewhere, [BASE, BASE + SECOND, BASE + 2 * SECOND]);
          expectMalformed(
            await send('GET', `${elsewhere.path}${qs('limit=1', cursorParam(cursor))}`, { token: sameUser.token }),
            `${ep.name} same user, other org`,
          );
          // Still valid where it came from.
          expect((await getPage(a.parent, qs('limit=1', cursorParam(cursor)))).items).toHaveLength(1);
        });

        if (ep.sibling) {
          it('refuses a cursor replayed on another parent of the same organization', async () => {
            const a = await ep.seed(3);
            const cursor = await firstCursor(a.parent);
            const other = await ep.sibling!(a.parent);
            await ep.insert(other, [BASE, BASE + SECOND, BASE + 2 * SECOND]);
            expectMalformed(await send('GET', `${other.path}${qs('limit=1', cursorParam(cursor))}`, { token: other.principal.token }), `${ep.name} sibling`);
          });
        }

        if (!ep.perUser) {
          it('lets another member of the same organization continue the same list', async () => {
            const { parent, rows } = await ep.seed(5);
            const cursor = await firstCursor(parent, '', 2);
            const viewer = await principal({ organizationId: parent.principal.organizationId, role: ep.adminOnly ? 'admin' : 'viewer' });
            const page = await getPage(parent, qs('limit=10', cursorParam(cursor)), viewer.token);
            expect(page.items.map(ep.idOf)).toEqual(
              sortDesc(rows)
                .slice(2)
                .map((r) => r.id),
            );
          });
        }

        for (const { from, to } of ep.filterChanges) {
          it(`refuses a cursor taken with "${from}" replayed with "${to}"`, async () => {
            const { parent } = await ep.seed(4);
            const cursor = await firstCursor(parent, from);
            expectMalformed(
              await send('GET', `${parent.path}${qs(to, 'limit=1', cursorParam(cursor))}`, { token: parent.principal.token }),
              `${ep.name} ${from} → ${to}`,
            );
            expect((await getPage(parent, qs(from, 'limit=1', cursorParam(cursor)))).items).toHaveLength(1);
          });
        }

        for (const { from, to } of ep.filterEquivalents) {
          it(`keeps a cursor taken with "${from}" valid with the same filters spelled "${to}"`, async () => {
            const { parent, rows } = await ep.seed(4);
            const cursor = await firstCursor(parent, from);
            const page = await getPage(parent, qs(to, 'limit=10', cursorParam(cursor)));
            expect(page.items.map(ep.idOf)).toEqual(
              sortDesc(rows)
                .slice(1)
                .map((r) => r.id),
            );
          });
        }
      });
    }

    it('refuses a cursor from every other list endpoint (each pair, one caller, one organization)', async () => {
      const who = await principal();
      const parents = new Map<string, Parent>();
      for (const ep of lists) {
        const parent = await ep.fresh(who);
        await ep.insert(parent, [BASE, BASE + SECOND, BASE + 2 * SECOND]);
        parents.set(ep.name, parent);
      }
      const cursors = new Map<string, string>();
      for (const ep of lists) cursors.set(ep.name, await firstCursor(parents.get(ep.name)!));
      for (const from of lists) {
        for (const to of lists) {
          const parent = parents.get(to.name)!;
          const res = await send('GET', `${parent.path}${qs('limit=1', cursorParam(cursors.get(from.name)))}`, { token: who.token });
          if (from === to) expect(res.statusCode, res.body).toBe(200);
          else expectMalformed(res, `${from.name} cursor on ${to.name}`);
        }
      }
    });

    // ------------------------------------------------------------------ runs-specific sort keys
    describe('runs sort keys', () => {
      it('a runs cursor of a project the caller cannot see is a 404, never a hint', async () => {
        const a = await runs.seed(3);
        const cursor = await firstCursor(a.parent);
        const stranger = await principal();
        expectProblem(await send('GET', `${a.parent.path}${qs('limit=1', cursorParam(cursor))}`, { token: stranger.token }), 404, 'not-found');
      });

      it('round-trips startTimes 1 ms apart exactly: limit 1 and 2 neither skip nor repeat', async () => {
        const keyAt = (i: number) => BASE + 123 + (i < 40 ? (i * 17) % 40 : (i % 7) * 3); // 40 distinct ms, then ties on some of them
        const { parent, rows } = await runs.seed(55, keyAt);
        for (const limit of [1, 2]) {
          const pages = await walk(parent, { limit: () => String(limit) });
          expectCompleteWalk(runs, pages, rows, limit, `1 ms apart, limit ${limit}`);
        }
      });

      it('round-trips sub-millisecond input precision: stored to the millisecond, walked at limit 1 without skips or repeats', async () => {
        const cases: Array<[input: string, stored: string]> = [
          ['2021-03-04T05:06:07.123456Z', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.123999Z', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.123Z', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.124Z', '2021-03-04T05:06:07.124Z'],
          ['2021-03-04T05:06:07.124001Z', '2021-03-04T05:06:07.124Z'],
          ['2021-03-04T05:06:07.122999999Z', '2021-03-04T05:06:07.122Z'],
          ['2021-03-04T05:06:07.1Z', '2021-03-04T05:06:07.100Z'],
          ['2021-03-04T05:06:07.12Z', '2021-03-04T05:06:07.120Z'],
          ['2021-03-04T05:06:07Z', '2021-03-04T05:06:07.000Z'],
          ['2021-03-04T05:06:07.000001Z', '2021-03-04T05:06:07.000Z'],
          ['2021-03-04T05:06:06.999999Z', '2021-03-04T05:06:06.999Z'],
          ['2021-03-04T06:06:07.123456+01:00', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.123500Z', '2021-03-04T05:06:07.123Z'],
          ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z'],
          ['1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z'],
          ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
        ];
        const parent = await runs.fresh();
        const ids = await ctx.make.runs(parent.projectId!, cases.length, (i) => ({ startTime: cases[i]![0] }));
        const rows = ids.map((id, i) => ({ id, key: Date.parse(cases[i]![1]) }));
        const pages = await walk(parent, { limit: () => '1' });
        expectCompleteWalk(runs, pages, rows, 1, 'sub-millisecond input');
        const stored = new Map(pages.flatMap((p) => p.items).map((item) => [item.id as string, item.startTime as string]));
        ids.forEach((id, i) => expect(stored.get(id), cases[i]![0]).toBe(cases[i]![1]));
      });

      it('breaks ties on client-chosen ids bytewise on both engines', async () => {
        const clientIds = [
          'a',
          'B',
          'b',
          'A',
          'Z',
          'z',
          '0',
          '9',
          'a-',
          'a_',
          'a.',
          'a:',
          'A-1',
          'aa',
          'a0',
          'aZ',
          'a-z',
          'run_x',
          'Run_x',
          'RUN_X',
          '1:2',
          '1.2',
          '1-2',
          '1_2',
        ];
        const parent = await runs.fresh();
        const ids = await ctx.make.runs(parent.projectId!, clientIds.length, (i) => ({ id: clientIds[i], startTime: iso(BASE) }));
        expect(ids).toEqual(clientIds);
        const rows = clientIds.map((id) => ({ id, key: BASE }));
        for (const limit of [1, 3]) {
          const pages = await walk(parent, { limit: () => String(limit) });
          expectCompleteWalk(runs, pages, rows, limit, `client ids, limit ${limit}`);
        }
      });
    });
  },
  // Private webhook targets allowed: the monitor deliveries list gets its new rows from a loopback receiver.
  { env: { SIGHTLINE_RATE_LIMIT: '10000000', SIGHTLINE_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
