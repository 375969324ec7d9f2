import { expect } from 'vitest';
import type { TestContext } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';

/**
 * An organization (owner, admin, member, viewer) with a project holding one conversation: session
 * `chat-1` of two traces (`t1`: runs `t1` → `t1-llm`; `t2`: run `t2`), for the scores suites.
 */
export async function scoresWorld(ctx: TestContext) {
  const owner = await ctx.make.caller({ role: 'owner' });
  const of = (role: 'admin' | 'member' | 'viewer') => ctx.make.caller({ role, organizationId: owner.organizationId });
  const [admin, member, other, viewer] = [await of('admin'), await of('member'), await of('member'), await of('viewer')];
  const project = await ctx.make.project(owner.organizationId);
  const at = (s: number) => new Date(Date.parse('2026-11-20T10:00:00Z') + s * 1000).toISOString();
  await ctx.make.runs(
    project.id,
    3,
    (i) =>
      [
        { id: 't1', name: 'agent', kind: 'agent', startTime: at(0), sessionId: 'chat-1' },
        { id: 't1-llm', parentRunId: 't1', name: 'llm', startTime: at(1), sessionId: 'chat-1' },
        { id: 't2', name: 'agent', kind: 'agent', startTime: at(60), sessionId: 'chat-1' },
      ][i]!,
  );
  const base = `/v1/projects/${project.id}`;
  const call = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    ctx.request(method, `${base}${path}`, { token, ...(body === undefined ? {} : { body }) });
  const config = async (body: Json) => {
    const res = await ctx.request('POST', '/v1/score-configs', { token: admin.token, body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Json;
  };
  return { owner, admin, member, other, viewer, project, base, call, config };
}
