/** The pagination contract's table: every list endpoint, how to seed it, and the filters that bind its cursors. */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, expect } from 'vitest';
import type { Role } from '../../src/auth/permissions.js';
import { TokenService } from '../../src/auth/tokens.js';
import { createInvitation } from '../../src/features/organizations/invitations.repo.js';
import { ensureUser, setMembership } from '../../src/features/organizations/organizations.repo.js';
import { createProject } from '../../src/features/projects/projects.repo.js';
import { insertItems } from '../../src/features/annotations/annotations.items.repo.js';
import { createQueue } from '../../src/features/annotations/annotations.repo.js';
import { createRule } from '../../src/features/evaluators/evaluators.repo.js';
import { addItems } from '../../src/features/datasets/datasets.items.repo.js';
import { createDataset } from '../../src/features/datasets/datasets.repo.js';
import { createExperiment } from '../../src/features/experiments/experiments.repo.js';
import { createModelPrice } from '../../src/features/models/models.repo.js';
import { createPrompt } from '../../src/features/prompts/prompts.repo.js';
import { issuePersonalAccessToken } from '../../src/features/tokens/tokens.repo.js';
import { recordAudit, SERVICE } from '../../src/db/audit.js';
import { newId } from '../../src/lib/ids.js';
import { Keyring } from '../../src/lib/keys.js';
import { PROBLEM_BASE, PUBLIC_URL, type TestContext } from '../helpers/harness.js';

// ---------------------------------------------------------------------------------------------
// Contract constants (docs/api.md, Pagination and Errors)
// ---------------------------------------------------------------------------------------------

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
export const CURSOR_MALFORMED = 'Cursor is malformed.';
/** The one 400 every bad cursor gets (minus `instance`, which names the request). */
export const MALFORMED_BODY = {
  type: `${PROBLEM_BASE}/validation`,
  title: 'Validation failed',
  status: 400,
  detail: CURSOR_MALFORMED,
  errors: [{ parameter: 'cursor', detail: CURSOR_MALFORMED }],
};

/** Seeded sort keys live in 2020, so anything the server stamps with "now" lands at the head. */
export const BASE = Date.parse('2020-01-01T00:00:00.000Z');
export const SECOND = 1000;
export const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// ---------------------------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------------------------

export type Item = Record<string, unknown>;

export interface Row {
  id: string;
  /** The sort key in epoch milliseconds. */
  key: number;
}

/** Who calls: a user with a role in an organization, holding a session JWT (so they own no PAT rows). */
export interface Principal {
  organizationId: string;
  userId: string;
  token: string;
}

/** One list: its path and the principal that reads it. */
export interface Parent {
  principal: Principal;
  path: string;
  projectId?: string;
  promptId?: string;
  monitorId?: string;
  datasetId?: string;
  queueId?: string;
  experimentId?: string;
}

export interface FilterPair {
  /** Query (without limit/cursor) the cursor is taken with. */
  from: string;
  /** Query the cursor is then replayed with. */
  to: string;
}

export interface ListEndpointSpec {
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
  /**
   * A list of distinct values in ascending order (`…/values`): each row's id is its value, which spells its
   * key so that a greater key sorts first (`valueAt`); rows of one key follow in ascending order of value.
   */
  idsAscending?: boolean;
  /** Filter changes that must invalidate a cursor (seed rows match every `from`). */
  filterChanges: FilterPair[];
  /** Spellings of the same normalized filters, between which a cursor stays valid. */
  filterEquivalents: FilterPair[];
}

export interface ListEndpoint extends ListEndpointSpec {
  /** A fresh parent with n rows; the keys are a permutation so insertion order is not key order. */
  seed(n: number, keyAt?: (i: number, n: number) => number): Promise<{ parent: Parent; rows: Row[] }>;
}

export const permutedKey = (i: number, n: number) => BASE + ((i * 7919) % n) * SECOND;

export function defineList(spec: ListEndpointSpec): ListEndpoint {
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
export const uniq = (prefix: string) => `${prefix}-${process.pid}-${(sequence++).toString(36)}`;

/** A value of a values list that sorts before every value of a smaller key: `v-` and the key's distance from a bound, then a unique tail. */
const VALUE_BOUND = 9_999_999_999_999;
export const valueAt = (key: number) => `v-${String(VALUE_BOUND - key).padStart(13, '0')}-${uniq('x')}`;
export const keyOfValue = (value: string) => VALUE_BOUND - Number(value.slice(2, 15));
export const iso = (ms: number) => new Date(ms).toISOString();

export const COOKIE = 'cookie:';

/**
 * `ctx.request`, except that a principal's credential is its dashboard session: the cookie, with the
 * dashboard's own Origin (state-changing cookie requests need it). Sessions, not PATs, so that a new
 * user's token lists start empty.
 */
export function requester(ctx: TestContext): TestContext['request'] {
  return (method, rawUrl, opts = {}) => {
    // A list whose path carries a query of its own (`…/values?field=name`) takes the contract's after it.
    const url = rawUrl.replace(/^([^?]*\?[^?]*)\?/, '$1&');
    const { token, ...rest } = opts;
    if (!token?.startsWith(COOKIE)) return ctx.request(method, url, opts);
    return ctx.request(method, url, { ...rest, headers: { ...(rest.headers ?? {}), cookie: token.slice(COOKIE.length), origin: PUBLIC_URL } });
  };
}

export function listEndpoints(ctx: TestContext) {
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
      { from: '', to: 'experiment=exclude' },
      { from: 'experiment=exclude', to: 'experiment=only' },
    ],
    filterEquivalents: [
      { from: 'tag=a&tag=b', to: 'tag=b&tag=a' },
      { from: 'status=running&metadata.x=1', to: 'metadata.x=1&status=running' },
      // `include` is the default: the same list.
      { from: '', to: 'experiment=include' },
    ],
  });

  // One trace per run (each a root): the traces list, keyed by the trace's start.
  const traces = defineList({
    name: 'traces',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      return { principal: who, path: `/v1/projects/${project.id}/traces`, projectId: project.id };
    },
    async sibling(parent) {
      return traces.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const ids = await ctx.make.runs(parent.projectId!, keys.length, (i) => ({ startTime: iso(keys[i]!), tags: ['a', 'b'], metadata: { x: '1', y: 2 } }));
      return ids.map((id, i) => ({ id, key: keys[i]! }));
    },
    async create(parent) {
      const projectRuns = parent.path.replace(/\/traces$/, '/runs');
      const run = await created(
        await send('POST', projectRuns, { token: parent.principal.token, body: { name: 'api-run', kind: 'llm', startTime: new Date().toISOString() } }),
      );
      return { id: run.traceId as string, key: Date.parse(run.startTime as string) };
    },
    async remove(parent, id) {
      await db().deleteFrom('runs').where('project_id', '=', parent.projectId!).where('trace_id', '=', id).execute();
      const result = await db().deleteFrom('traces').where('project_id', '=', parent.projectId!).where('trace_id', '=', id).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.startTime as string),
    idOf: (item) => item.traceId as string,
    filterChanges: [
      { from: '', to: 'status=running' },
      { from: 'kind=llm', to: 'kind=chain' },
      { from: 'tag=a', to: 'tag=b' },
      { from: 'metadata.x=1', to: 'metadata.x=2' },
      { from: 'experiment=exclude', to: 'experiment=only' },
    ],
    filterEquivalents: [
      { from: 'tag=a&tag=b', to: 'tag=b&tag=a' },
      { from: '', to: 'experiment=include' },
    ],
  });

  // One session (one end user) per run: the activity lists, keyed by the latest end of their runs.
  const activityList = (name: 'sessions' | 'users', field: 'sessionId' | 'userId', table: 'run_sessions' | 'run_users', column: 'session_id' | 'user_id') => {
    const list: ListEndpoint = defineList({
      name,
      perUser: false,
      async fresh(p) {
        const who = p ?? (await principal());
        const project = await ctx.make.project(who.organizationId);
        return { principal: who, path: `/v1/projects/${project.id}/${name}`, projectId: project.id };
      },
      async sibling(parent) {
        return list.fresh(parent.principal);
      },
      async insert(parent, keys) {
        const values = keys.map(() => uniq(field));
        await ctx.make.runs(parent.projectId!, keys.length, (i) => ({ startTime: iso(keys[i]!), [field]: values[i] }));
        return values.map((id, i) => ({ id, key: keys[i]! }));
      },
      async create(parent) {
        const value = uniq(field);
        const runs = parent.path.replace(new RegExp(`/${name}$`), '/runs');
        const run = await created(
          await send('POST', runs, {
            token: parent.principal.token,
            body: { name: 'api-run', kind: 'llm', startTime: new Date().toISOString(), [field]: value },
          }),
        );
        return { id: value, key: Date.parse(run.startTime as string) };
      },
      async remove(parent, id) {
        await db().deleteFrom('runs').where('project_id', '=', parent.projectId!).where(column, '=', id).execute();
        const result = await db().deleteFrom(table).where('project_id', '=', parent.projectId!).where(column, '=', id).executeTakeFirst();
        expect(Number(result.numDeletedRows)).toBe(1);
      },
      keyOf: (item) => Date.parse(item.endTime as string),
      idOf: (item) => item[field] as string,
      filterChanges: [
        { from: '', to: 'experiment=exclude' },
        { from: 'experiment=exclude', to: 'experiment=only' },
      ],
      filterEquivalents: [{ from: '', to: 'experiment=include' }],
    });
    return list;
  };
  const conversations = activityList('sessions', 'sessionId', 'run_sessions', 'session_id');
  const endUsers = activityList('users', 'userId', 'run_users', 'user_id');

  /**
   * A list of distinct values (`GET …/runs/values?field=…`, `GET …/scores/values?field=name`): a row is a
   * value, made by `store` (one or more records that have it) and taken away by `forget`; a value spells its
   * key (`valueAt`), so newest first is the values' own ascending order.
   */
  function valuesList(
    name: string,
    path: (projectId: string) => string,
    fresh: (projectId: string) => Promise<void>,
    store: (parent: Parent, values: string[]) => Promise<void>,
    create: (parent: Parent, value: string) => Promise<LightMyRequestResponse>,
    forget: (parent: Parent, value: string) => Promise<void>,
  ): ListEndpoint {
    const list: ListEndpoint = defineList({
      name,
      perUser: false,
      idsAscending: true,
      async fresh(p) {
        const who = p ?? (await principal());
        const project = await ctx.make.project(who.organizationId);
        await fresh(project.id);
        return { principal: who, path: path(project.id), projectId: project.id };
      },
      async sibling(parent) {
        return list.fresh(parent.principal);
      },
      async insert(parent, keys) {
        const values = keys.map(valueAt);
        await store(parent, values);
        return values.map((id, i) => ({ id, key: keys[i]! }));
      },
      async create(parent) {
        const key = Date.now();
        const value = valueAt(key);
        const res = await create(parent, value);
        expect(res.statusCode, res.body).toBe(201);
        return { id: value, key };
      },
      remove: (parent, value) => forget(parent, value),
      keyOf: (item) => keyOfValue(item.value as string),
      idOf: (item) => item.value as string,
      filterChanges: [
        { from: '', to: 'prefix=v' },
        { from: 'prefix=v', to: 'prefix=v-' },
        { from: 'prefix=v-', to: '' },
      ],
      filterEquivalents: [],
    });
    return list;
  }
  const runsIn = (projectId: string) => `/v1/projects/${projectId}/runs`;
  const runNames = valuesList(
    'run values (name)',
    (projectId) => `${runsIn(projectId)}/values?field=name`,
    async () => {},
    async (parent, values) => void (await ctx.make.runs(parent.projectId!, values.length, (i) => ({ name: values[i] }))),
    (parent, value) => send('POST', runsIn(parent.projectId!), { token: parent.principal.token, body: { name: value, kind: 'llm', startTime: iso(BASE) } }),
    async (parent, value) => {
      await db().deleteFrom('runs').where('project_id', '=', parent.projectId!).where('name', '=', value).execute();
      const result = await db()
        .deleteFrom('run_values')
        .where('project_id', '=', parent.projectId!)
        .where('field', '=', 'name')
        .where('value', '=', value)
        .executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
  );
  const runSessions = valuesList(
    'run values (sessionId)',
    (projectId) => `${runsIn(projectId)}/values?field=sessionId`,
    async () => {},
    async (parent, values) => void (await ctx.make.runs(parent.projectId!, values.length, (i) => ({ sessionId: values[i] }))),
    (parent, value) =>
      send('POST', runsIn(parent.projectId!), {
        token: parent.principal.token,
        body: { name: 'api-run', kind: 'llm', startTime: iso(BASE), sessionId: value },
      }),
    async (parent, value) => {
      const result = await db().deleteFrom('runs').where('project_id', '=', parent.projectId!).where('session_id', '=', value).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
  );
  /** Score names: each score on the project's one run, `scored`. */
  const scoreNames = valuesList(
    'score values (name)',
    (projectId) => `/v1/projects/${projectId}/scores/values?field=name`,
    async (projectId) => void (await ctx.make.runs(projectId, 1, () => ({ id: 'scored' }))),
    async (parent, values) => {
      for (const value of values) {
        const res = await send('POST', `${runsIn(parent.projectId!)}/scored/scores`, { token: parent.principal.token, body: { name: value, value: 1 } });
        expect(res.statusCode, res.body).toBe(201);
      }
    },
    (parent, value) => send('POST', `${runsIn(parent.projectId!)}/scored/scores`, { token: parent.principal.token, body: { name: value, value: 1 } }),
    async (parent, value) => {
      const result = await db().deleteFrom('scores').where('project_id', '=', parent.projectId!).where('name', '=', value).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBeGreaterThan(0);
    },
  );

  /** Removes a row with the API's DELETE of `<list path>/<id>`. */
  async function deleteThroughApi(parent: Parent, id: string): Promise<void> {
    const res = await send('DELETE', `${parent.path}/${id}`, { token: parent.principal.token });
    expect(res.statusCode, res.body).toBe(204);
  }

  /**
   * An organization's list of named things (projects, datasets): rows made by the repository's `make`
   * at their key with names starting `prefix` (so they match every `from`), deleted through the API.
   */
  function namedList(
    name: string,
    path: string,
    prefix: string,
    make: (organizationId: string, name: string, at: number) => Promise<{ id: string; created_at: number }>,
    filters: Pick<ListEndpointSpec, 'filterChanges' | 'filterEquivalents'>,
  ): ListEndpoint {
    return defineList({
      name,
      perUser: false,
      async fresh(p) {
        return { principal: p ?? (await principal()), path };
      },
      async insert(parent, keys) {
        const rows: Row[] = [];
        for (const key of keys) {
          const row = await make(parent.principal.organizationId, uniq(prefix), key);
          rows.push({ id: row.id, key: row.created_at });
        }
        return rows;
      },
      async create(parent) {
        const item = await created(await send('POST', path, { token: parent.principal.token, body: { name: uniq(`${prefix}-api`) } }));
        return { id: item.id as string, key: Date.parse(item.createdAt as string) };
      },
      remove: deleteThroughApi,
      keyOf: (item) => Date.parse(item.createdAt as string),
      idOf: (item) => item.id as string,
      ...filters,
    });
  }

  const projects = namedList('projects', '/v1/projects', 'proj', (organizationId, name, at) => createProject(db(), organizationId, { name }, at), {
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

  /**
   * The audit log's minted tokens (`action=token.created`: a principal's own sign-in is an event of its log,
   * `session.created`, which this filter leaves out): rows written by the audit writer at the given times.
   */
  const auditLog = defineList({
    name: 'audit log',
    perUser: false,
    adminOnly: true,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/organization/audit-log?action=token.created' };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const id = uniq('tok');
        await recordAudit(db(), {
          organizationId: parent.principal.organizationId,
          actor: SERVICE,
          action: 'token.created',
          target: { type: 'token', id },
          at: key,
        });
        const row = await db().selectFrom('audit_events').select('id').where('target_id', '=', id).executeTakeFirstOrThrow();
        rows.push({ id: row.id, key });
      }
      return rows;
    },
    async create(parent) {
      const minted = await created(await send('POST', '/v1/tokens', { token: parent.principal.token, body: { name: uniq('audited') } }));
      const row = await db()
        .selectFrom('audit_events')
        .select(['id', 'created_at'])
        .where('target_id', '=', minted.id as string)
        .executeTakeFirstOrThrow();
      return { id: row.id, key: Number(row.created_at) };
    },
    async remove(_parent, id) {
      await db().deleteFrom('audit_events').where('id', '=', id).execute();
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [{ from: 'from=2019-01-01T00:00:00.000Z', to: 'from=2019-01-02T00:00:00.000Z' }],
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

  /** An organization's model prices: seeded with `price` in the model and provider `groq`, so they match every `from`. */
  const modelPrices = defineList({
    name: 'model prices',
    perUser: false,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/models' };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const fields = {
          model: uniq('price'),
          provider: 'groq',
          inputPrice: 1,
          outputPrice: 2,
          cacheReadPrice: null,
          cacheWritePrice: null,
          reasoningPrice: null,
        };
        const row = await createModelPrice(db(), parent.principal, { ...fields, currency: 'USD', effectiveFrom: key }, key);
        rows.push({ id: row.id, key: row.created_at });
      }
      return rows;
    },
    async create(parent) {
      const price = await created(
        await send('POST', '/v1/models', {
          token: parent.principal.token,
          body: { model: uniq('price-api'), provider: 'groq', inputPrice: 1, outputPrice: 2 },
        }),
      );
      return { id: price.id as string, key: Date.parse(price.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `/v1/models/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'model=price' },
      { from: 'model=price', to: '' },
      { from: 'model=price', to: 'model=rice' },
      { from: '', to: 'provider=groq' },
      { from: 'provider=groq', to: 'provider=azure' },
      { from: 'model=price&provider=groq', to: 'model=price' },
    ],
    filterEquivalents: [{ from: 'model=price&provider=groq', to: 'provider=groq&model=price' }],
  });

  /** A user's saved views of a project: all of the `traces` page, so they match every `from`. */
  const savedViews = defineList({
    name: 'saved views',
    perUser: true,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      return { principal: who, path: `/v1/projects/${project.id}/views`, projectId: project.id };
    },
    async sibling(parent) {
      return savedViews.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        // Straight into the table: a seed of 200 passes the API's bound of views per user.
        const id = newId('vew', key);
        await db()
          .insertInto('saved_views')
          .values({
            id,
            organization_id: parent.principal.organizationId,
            project_id: parent.projectId!,
            user_id: parent.principal.userId,
            name: uniq('view'),
            page: 'traces',
            filters: '{}',
            created_at: key,
            updated_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      const view = await created(await send('POST', parent.path, { token: parent.principal.token, body: { name: uniq('view-api'), page: 'traces' } }));
      return { id: view.id as string, key: Date.parse(view.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `${parent.path}/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'page=traces' },
      { from: 'page=traces', to: 'page=runs' },
    ],
    filterEquivalents: [],
  });

  /** A project's scores: all on its one run, named `quality`, from the API, so they match every `from`. */
  const scores = defineList({
    name: 'scores',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      await ctx.make.runs(project.id, 1, () => ({ id: 'scored' }));
      return { principal: who, path: `/v1/projects/${project.id}/scores`, projectId: project.id };
    },
    async sibling(parent) {
      return scores.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const id = newId('scr', key);
        await db()
          .insertInto('scores')
          .values({
            project_id: parent.projectId!,
            id,
            organization_id: parent.principal.organizationId,
            target: 'run',
            target_id: 'scored',
            name: 'quality',
            data_type: 'numeric',
            value: key % 10,
            label: null,
            comment: null,
            source: 'api',
            author_kind: 'user',
            author_id: parent.principal.userId,
            config_id: null,
            queue_id: null,
            metadata: '{}',
            content_hash: id,
            created_at: key,
            updated_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      const score = await created(
        await send('POST', `/v1/projects/${parent.projectId}/runs/scored/scores`, { token: parent.principal.token, body: { name: 'quality', value: 1 } }),
      );
      return { id: score.id as string, key: Date.parse(score.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `${parent.path}/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'name=quality' },
      { from: 'name=quality', to: 'name=other' },
      { from: '', to: 'source=api' },
      { from: 'source=api', to: 'source=annotation' },
      { from: 'target=run', to: 'target=trace' },
      { from: 'runId=scored', to: 'traceId=scored' },
      { from: 'name=quality&source=api', to: 'name=quality' },
      { from: '', to: 'createdAfter=2019-01-01T00:00:00.000Z' },
    ],
    filterEquivalents: [{ from: 'name=quality&source=api', to: 'source=api&name=quality' }],
  });

  /** An organization's score configs: numeric, none archived, so they match every `from`. */
  const scoreConfigs = defineList({
    name: 'score configs',
    perUser: false,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/score-configs' };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const id = newId('scc', key);
        await db()
          .insertInto('score_configs')
          .values({
            id,
            organization_id: parent.principal.organizationId,
            name: uniq('config'),
            data_type: 'numeric',
            min_value: null,
            max_value: null,
            categories: null,
            description: null,
            archived: 0,
            created_at: key,
            updated_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      const config = await created(
        await send('POST', '/v1/score-configs', { token: parent.principal.token, body: { name: uniq('config-api'), dataType: 'boolean' } }),
      );
      return { id: config.id as string, key: Date.parse(config.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `/v1/score-configs/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'name=config' },
      { from: 'name=config', to: 'name=conf' },
      { from: '', to: 'archived=false' },
      { from: 'archived=false', to: 'archived=true' },
    ],
    filterEquivalents: [{ from: 'name=config&archived=false', to: 'archived=false&name=config' }],
  });

  /** An organization's datasets; the name filter is case-insensitive, so its spellings share cursors. */
  const datasets = namedList('datasets', '/v1/datasets', 'dataset', (organizationId, name, at) => createDataset(db(), organizationId, { name }, at), {
    filterChanges: [
      { from: '', to: 'name=dataset' },
      { from: 'name=dataset', to: '' },
      { from: 'name=dataset', to: 'name=datase' },
    ],
    filterEquivalents: [{ from: 'name=dataset', to: 'name=DataSet' }],
  });

  /**
   * A dataset's items, read without `version` (the current version on each page, so an item deleted
   * through the API leaves the walk); each seeded row is its own version, created at its key.
   */
  const datasetItems = defineList({
    name: 'dataset items',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const dataset = await createDataset(db(), who.organizationId, { name: uniq('items') }, ctx.clock.now());
      return { principal: who, path: `/v1/datasets/${dataset.id}/items`, datasetId: dataset.id };
    },
    async sibling(parent) {
      return datasetItems.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      const ref = { organizationId: parent.principal.organizationId, datasetId: parent.datasetId! };
      for (const key of keys) {
        const { rows: added } = await addItems(db(), ref, [{ input: { key } }], key);
        rows.push({ id: added[0]!.item_id, key });
      }
      return rows;
    },
    async create(parent) {
      const answer = await created(await send('POST', parent.path, { token: parent.principal.token, body: { items: [{ input: 'api' }] } }));
      const item = (answer.items as Item[])[0]!;
      return { id: item.id as string, key: Date.parse(item.createdAt as string) };
    },
    remove: deleteThroughApi,
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    // Seeded with 4 rows, the dataset is at version 4.
    filterChanges: [
      { from: '', to: 'version=4' },
      { from: 'version=4', to: '' },
      { from: 'version=4', to: 'version=3' },
    ],
    filterEquivalents: [],
  });

  /** A project's annotation queues (no filters), made at their key by the repository, deleted through the API. */
  const annotationQueues = defineList({
    name: 'annotation queues',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      return { principal: who, path: `/v1/projects/${project.id}/annotation-queues`, projectId: project.id };
    },
    async sibling(parent) {
      return annotationQueues.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const scope = { organizationId: parent.principal.organizationId, projectId: parent.projectId! };
      const rows: Row[] = [];
      for (const key of keys) rows.push({ id: (await createQueue(db(), scope, { name: uniq('queue') }, key)).id, key });
      return rows;
    },
    async create(parent) {
      const queue = await created(await send('POST', parent.path, { token: parent.principal.token, body: { name: uniq('queue-api') } }));
      return { id: queue.id as string, key: Date.parse(queue.createdAt as string) };
    },
    remove: deleteThroughApi,
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  /** A queue's items, each added at its key (all pending, so they match every `from`); removed in the database (no delete route). */
  const annotationItems = defineList({
    name: 'annotation items',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      const queue = await createQueue(db(), { organizationId: who.organizationId, projectId: project.id }, { name: uniq('items') }, ctx.clock.now());
      return { principal: who, path: `/v1/projects/${project.id}/annotation-queues/${queue.id}/items`, projectId: project.id, queueId: queue.id };
    },
    async sibling(parent) {
      return annotationItems.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const scope = { organizationId: parent.principal.organizationId, projectId: parent.projectId! };
      const rows: Row[] = [];
      for (const key of keys) {
        const target = uniq('target');
        await insertItems(db(), scope, parent.queueId!, [target], key);
        const item = await db()
          .selectFrom('annotation_items')
          .select('id')
          .where('queue_id', '=', parent.queueId!)
          .where('target_id', '=', target)
          .executeTakeFirstOrThrow();
        rows.push({ id: item.id, key });
      }
      return rows;
    },
    async create(parent) {
      const [runId] = await ctx.make.runs(parent.projectId!, 1, () => ({ id: uniq('target'), startTime: new Date().toISOString() }));
      const res = await send('POST', parent.path, { token: parent.principal.token, body: { ids: [runId] } });
      expect(res.statusCode, res.body).toBe(200);
      const head = (await send('GET', `${parent.path}?limit=1`, { token: parent.principal.token })).json().items[0] as Item;
      expect(head.targetId).toBe(runId);
      return { id: head.id as string, key: Date.parse(head.createdAt as string) };
    },
    async remove(parent, id) {
      const result = await db().deleteFrom('annotation_items').where('queue_id', '=', parent.queueId!).where('id', '=', id).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'status=pending' },
      { from: 'status=pending', to: 'status=completed' },
      { from: 'status=pending', to: '' },
    ],
    filterEquivalents: [],
  });

  /** A project's evaluator rules (no filters), made at their key (past the first, as rows: a project's cap is 100), deleted through the API. */
  const evaluatorRules = defineList({
    name: 'evaluator rules',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const project = await ctx.make.project(who.organizationId);
      return { principal: who, path: `/v1/projects/${project.id}/evaluators`, projectId: project.id };
    },
    async sibling(parent) {
      return evaluatorRules.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const scope = { organizationId: parent.principal.organizationId, projectId: parent.projectId! };
      const rows: Row[] = [];
      // The first through the repository; the rest as rows of their own (a project keeps at most 100 rules).
      for (const [i, key] of keys.entries()) {
        if (i === 0) {
          rows.push({ id: (await createRule(db(), scope, { name: uniq('rule'), evaluator: { type: 'json_valid' }, scoreName: 'valid' }, key)).id, key });
          continue;
        }
        const id = newId('evr', key);
        await db()
          .insertInto('evaluator_rules')
          .values({
            id,
            organization_id: scope.organizationId,
            project_id: scope.projectId,
            name: uniq('rule'),
            filter: '{}',
            sample_rate: 1,
            evaluator: '{"type":"json_valid"}',
            score_name: 'valid',
            enabled: 1,
            created_at: key,
            updated_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      const body = { name: uniq('rule-api'), evaluator: { type: 'json_valid' }, scoreName: 'valid' };
      const rule = await created(await send('POST', parent.path, { token: parent.principal.token, body }));
      return { id: rule.id as string, key: Date.parse(rule.createdAt as string) };
    },
    remove: deleteThroughApi,
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  /** An organization's model connections (admin material: the owner lists them). */
  const modelConnections = defineList({
    name: 'model connections',
    perUser: false,
    adminOnly: true,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/model-connections' };
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const id = newId('mcn', key);
        await db()
          .insertInto('model_connections')
          .values({
            id,
            organization_id: parent.principal.organizationId,
            name: uniq('connection'),
            base_url: 'https://models.example.com/v1',
            model: 'gpt-4o-mini',
            api_key: null,
            api_key_hint: null,
            headers: null,
            header_names: '[]',
            monthly_budget_usd: 1,
            input_price: null,
            output_price: null,
            spent_month: '',
            spent_picousd: 0,
            created_at: key,
            updated_at: key,
          })
          .execute();
        rows.push({ id, key });
      }
      return rows;
    },
    async create(parent) {
      const body = { name: uniq('connection-api'), baseUrl: 'https://models.example.com/v1', model: 'gpt-4o-mini', monthlyBudgetUsd: 1 };
      const connection = await created(await send('POST', '/v1/model-connections', { token: parent.principal.token, body }));
      return { id: connection.id as string, key: Date.parse(connection.createdAt as string) };
    },
    async remove(parent, id) {
      const res = await send('DELETE', `/v1/model-connections/${id}`, { token: parent.principal.token });
      expect(res.statusCode, res.body).toBe(204);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'name=connection' },
      { from: 'name=connection', to: 'name=conn' },
    ],
    filterEquivalents: [],
  });

  /** A dataset of the organization (items api-0 … api-9 at version 1) and a project, made once per organization, for experiments. */
  const experimentHomes = new Map<string, Promise<{ datasetId: string; projectId: string }>>();
  const experimentHome = (organizationId: string) => {
    let home = experimentHomes.get(organizationId);
    if (!home) {
      home = (async () => {
        const dataset = await createDataset(db(), organizationId, { name: uniq('experiments') }, ctx.clock.now());
        const items = Array.from({ length: 10 }, (_, i) => ({ id: `api-${i}`, input: i }));
        await addItems(db(), { organizationId, datasetId: dataset.id }, items, ctx.clock.now());
        return { datasetId: dataset.id, projectId: (await ctx.make.project(organizationId)).id };
      })();
      experimentHomes.set(organizationId, home);
    }
    return home;
  };

  /** The organization's experiments, made at their key by the repository (all of one dataset), deleted through the API. */
  const experiments = defineList({
    name: 'experiments',
    perUser: false,
    async fresh(p) {
      return { principal: p ?? (await principal()), path: '/v1/experiments' };
    },
    async insert(parent, keys) {
      const home = await experimentHome(parent.principal.organizationId);
      const rows: Row[] = [];
      for (const key of keys) rows.push({ id: (await createExperiment(db(), parent.principal.organizationId, { name: uniq('exp'), ...home }, key)).id, key });
      return rows;
    },
    async create(parent) {
      const home = await experimentHome(parent.principal.organizationId);
      const item = await created(await send('POST', parent.path, { token: parent.principal.token, body: { name: uniq('exp-api'), ...home } }));
      return { id: item.id as string, key: Date.parse(item.createdAt as string) };
    },
    remove: deleteThroughApi,
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.id as string,
    filterChanges: [
      { from: '', to: 'datasetId=ds_none' },
      { from: '', to: 'name=exp' },
    ],
    filterEquivalents: [],
  });

  /**
   * An experiment's results, each stored at its key in the database (for items the rows name only); one
   * made through the API records the next of the dataset's items api-0 … api-9; removed in the database.
   */
  const experimentResults = defineList({
    name: 'experiment results',
    perUser: false,
    async fresh(p) {
      const who = p ?? (await principal());
      const home = await experimentHome(who.organizationId);
      const experiment = await createExperiment(db(), who.organizationId, { name: uniq('results'), ...home }, ctx.clock.now());
      return { principal: who, path: `/v1/experiments/${experiment.id}/results`, experimentId: experiment.id, projectId: home.projectId };
    },
    async sibling(parent) {
      return experimentResults.fresh(parent.principal);
    },
    async insert(parent, keys) {
      const rows: Row[] = [];
      for (const key of keys) {
        const itemId = uniq('item');
        await db()
          .insertInto('experiment_results')
          .values({
            experiment_id: parent.experimentId!,
            item_id: itemId,
            organization_id: parent.principal.organizationId,
            project_id: parent.projectId!,
            run_id: uniq('run'),
            trace_id: null,
            output: 'null',
            error: null,
            latency_ms: 1,
            usage: null,
            total_tokens: null,
            cost: null,
            content_hash: '',
            created_at: key,
          })
          .execute();
        rows.push({ id: itemId, key });
      }
      return rows;
    },
    async create(parent) {
      const taken = await db()
        .selectFrom('experiment_results')
        .select('item_id')
        .where('experiment_id', '=', parent.experimentId!)
        .where('item_id', 'like', 'api-%')
        .execute();
      const itemId = `api-${taken.length}`;
      const [runId] = await ctx.make.runs(parent.projectId!, 1); // a result names a run of the experiment's project
      const res = await send('POST', parent.path, { token: parent.principal.token, body: { results: [{ itemId, runId, latencyMs: 5 }] } });
      expect(res.statusCode, res.body).toBe(200);
      const head = (await send('GET', `${parent.path}?limit=1`, { token: parent.principal.token })).json().items[0] as Item;
      expect(head.itemId).toBe(itemId);
      return { id: itemId, key: Date.parse(head.createdAt as string) };
    },
    async remove(parent, id) {
      const result = await db().deleteFrom('experiment_results').where('experiment_id', '=', parent.experimentId!).where('item_id', '=', id).executeTakeFirst();
      expect(Number(result.numDeletedRows)).toBe(1);
    },
    keyOf: (item) => Date.parse(item.createdAt as string),
    idOf: (item) => item.itemId as string,
    filterChanges: [],
    filterEquivalents: [],
  });

  return {
    lists: [
      runs,
      traces,
      conversations,
      endUsers,
      runNames,
      runSessions,
      scoreNames,
      projects,
      tokens,
      invitations,
      organizationTokens,
      auditLog,
      prompts,
      versions,
      labelHistory,
      monitors,
      monitorEvents,
      monitorDeliveries,
      modelPrices,
      savedViews,
      datasets,
      datasetItems,
      scores,
      scoreConfigs,
      annotationQueues,
      annotationItems,
      experiments,
      experimentResults,
      evaluatorRules,
      modelConnections,
    ] as ListEndpoint[],
    runs,
    principal,
  };
}
