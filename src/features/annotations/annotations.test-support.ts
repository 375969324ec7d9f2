// What the annotation queue suites (annotations*.test.ts) share: an organization with its callers, a
// project with runs, and calls bound to them.
import type { Caller, TestContext } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';

let seq = 0;
/** A queue name no other test uses. */
export const qname = (prefix = 'review') => `${prefix} ${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

/**
 * An organization (owner, admin, two members, a viewer) with a project of `runs` runs (`r0`, `r1`, …,
 * one a second, each its own trace; even ones `kind: tool`, odd ones `llm`), and calls under the project.
 */
export async function queuesWorld(ctx: TestContext, runs = 4) {
  const owner = await ctx.make.caller({ role: 'owner' });
  const of = (role: 'admin' | 'member' | 'viewer') => ctx.make.caller({ role, organizationId: owner.organizationId });
  const [admin, member, other, viewer] = [await of('admin'), await of('member'), await of('member'), await of('viewer')];
  const project = await ctx.make.project(owner.organizationId);
  const ids = await ctx.make.runs(project.id, runs, (i) => ({ id: `r${i}`, kind: i % 2 === 0 ? 'tool' : 'llm' }));
  const base = `/v1/projects/${project.id}/annotation-queues`;
  const call = (caller: Caller, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    ctx.request(method, `${base}${path}`, { token: caller.token, ...(body === undefined ? {} : { body }) });
  const queue = async (body: Json = {}, caller: Caller = member): Promise<Json> => ok(await call(caller, 'POST', '', { name: qname(), ...body }), 201);
  const add = async (queueId: string, body: Json, caller: Caller = member): Promise<Json> => ok(await call(caller, 'POST', `/${queueId}/items`, body));
  const claim = (queueId: string, caller: Caller) => call(caller, 'POST', `/${queueId}/claim`);
  const counts = async (queueId: string): Promise<Json> => ok(await call(member, 'GET', `/${queueId}`)).counts;
  const config = async (body: Json): Promise<Json> => ok(await ctx.request('POST', '/v1/score-configs', { token: admin.token, body }), 201);
  return { owner, admin, member, other, viewer, project, runIds: ids, base, call, queue, add, claim, counts, config };
}

export type QueuesWorld = Awaited<ReturnType<typeof queuesWorld>>;
