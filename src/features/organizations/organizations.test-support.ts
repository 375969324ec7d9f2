// What the organization suites (organizations*.test.ts) share: unique names, a team of every role, the calls bound to a context.
import { expect, vi } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { Role } from '../../auth/permissions.js';
import { main } from '../../cli.js';
import { describeEachDialect, PUBLIC_URL, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import { expectValidation } from '../../../test/helpers/problems.js';

export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];
export const TOKEN_FIELDS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'projectIds', 'revokedAt', 'scopes', 'userId'];

let sequence = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(sequence++).toString(36)}`;
export const email = (prefix = 'someone') => `${unique(prefix)}@example.test`;

/** The 400 validation problem, and the exact set of pointers it names (a field may have several faults). */
export function pointersOf(res: LightMyRequestResponse): string[] {
  return [...new Set(expectValidation(res).map((e) => e.pointer ?? `?${e.parameter}`))].sort();
}

export type Member = { user: { id: string; email: string; name: string; createdAt: string }; role: Role; joinedAt: string };
export type Invitation = { id: string; email: string; role: Role; invitedBy: string; createdAt: string };

/** The calls and checks of the organization suites, bound to a context. */
export function helpers(ctx: TestContext) {
  const db = () => ctx.database.storage.db;

  /** An organization with one caller per role (the owner first). */
  async function team(): Promise<Record<Role, Caller>> {
    const owner = await ctx.make.caller({ role: 'owner' });
    const organizationId = owner.organizationId;
    const [admin, member, viewer] = await Promise.all((['admin', 'member', 'viewer'] as const).map((role) => ctx.make.caller({ role, organizationId })));
    return { owner, admin: admin!, member: member!, viewer: viewer! };
  }

  const getOrg = async (caller: Caller) => {
    const res = await ctx.request('GET', '/v1/organization', { token: caller.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; name: string; plan: string; allowedOrigins: string[]; createdAt: string };
  };
  const patchOrg = (caller: Caller, body: unknown) => ctx.request('PATCH', '/v1/organization', { token: caller.token, body });
  const setPlan = (organizationId: string, plan: string) => db().updateTable('organizations').set({ plan }).where('id', '=', organizationId).execute();

  /** Every item of a paginated list, following `nextCursor`; checks the envelope on every page. */
  async function collect<T>(caller: Caller, path: string, limit: number): Promise<{ items: T[]; pages: number }> {
    const items: T[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url = `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await ctx.request('GET', url, { token: caller.token });
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { items: T[]; nextCursor?: string | null; limit: number };
      expect(Object.keys(page).sort()).toEqual(['items', 'limit', 'nextCursor']);
      expect(page.limit).toBe(limit);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      if (page.nextCursor !== null) expect(page.items.length).toBe(limit);
      items.push(...page.items);
      cursor = page.nextCursor ?? null;
      pages += 1;
      expect(pages).toBeLessThan(50);
    } while (cursor);
    return { items, pages };
  }

  const members = async (caller: Caller) => (await collect<Member>(caller, '/v1/organization/members', 100)).items;
  const roleOf = async (caller: Caller, userId: string) => (await members(caller)).find((m) => m.user.id === userId)?.role;
  const membershipRole = async (organizationId: string, userId: string) =>
    (await db().selectFrom('memberships').select('role').where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst())?.role;
  const setRole = (caller: Caller, userId: string, body: unknown) => ctx.request('PATCH', `/v1/organization/members/${userId}`, { token: caller.token, body });
  const remove = (caller: Caller, userId: string) => ctx.request('DELETE', `/v1/organization/members/${userId}`, { token: caller.token });
  const invite = (caller: Caller, body: unknown) => ctx.request('POST', '/v1/organization/invitations', { token: caller.token, body });
  const invitations = async (caller: Caller) => (await collect<Invitation>(caller, '/v1/organization/invitations', 100)).items;
  const createProject = (caller: Caller) => ctx.request('POST', '/v1/projects', { token: caller.token, body: { name: unique('p') } });

  /** Runs the real CLI entry point against this suite's database and the app's issuer. */
  async function cli(args: string[], env: Record<string, string> = {}) {
    const config = ctx.database.config;
    const vars: Record<string, string> = {
      DATABASE_URL: config.kind === 'sqlite' ? `sqlite:${config.path}` : config.url,
      SIGHTLINE_PUBLIC_URL: PUBLIC_URL,
      LOG_LEVEL: 'silent',
      ...env,
    };
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    const out: string[] = [];
    const err: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    try {
      const code = await main(args);
      return { code, out, err };
    } finally {
      log.mockRestore();
      error.mockRestore();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  return { db, team, getOrg, patchOrg, setPlan, collect, members, roleOf, membershipRole, setRole, remove, invite, invitations, createProject, cli };
}

/** The organization suite (organization, members, invitations) on each engine. */
export function describeOrganization(body: (ctx: TestContext, h: ReturnType<typeof helpers>) => void): void {
  describeEachDialect('organization, members, invitations', (ctx: TestContext) => body(ctx, helpers(ctx)));
}
