// What the evaluator suites (evaluators*.test.ts) share: an organization with its callers, a project,
// calls under its evaluator rules, and a pass of the instance's worker.
import type { Caller, TestContext } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';

let seq = 0;
/** A rule name no other test uses. */
export const rname = (prefix = 'rule') => `${prefix} ${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

/** An organization (owner, admin, member, viewer) with a project and calls bound to its evaluator rules. */
export async function evaluatorsWorld(ctx: TestContext) {
  const owner = await ctx.make.caller({ role: 'owner' });
  const of = (role: 'admin' | 'member' | 'viewer') => ctx.make.caller({ role, organizationId: owner.organizationId });
  const [admin, member, viewer] = [await of('admin'), await of('member'), await of('viewer')];
  const project = await ctx.make.project(owner.organizationId);
  const base = `/v1/projects/${project.id}/evaluators`;
  const call = (caller: Caller, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    ctx.request(method, `${base}${path}`, { token: caller.token, ...(body === undefined ? {} : { body }) });
  const rule = async (body: Json): Promise<Json> => ok(await call(admin, 'POST', '', { name: rname(), scoreName: 'check', ...body }), 201);
  const get = async (id: string): Promise<Json> => ok(await call(viewer, 'GET', `/${id}`));
  /** Runs stored through the runs batch API (the one ingestion pipeline). */
  const ingest = async (runs: Json[]): Promise<string[]> => {
    const answer = ok(await ctx.request('POST', `/v1/projects/${project.id}/runs/batch`, { token: member.token, body: { runs } }));
    return (answer.results as Json[]).map((r) => {
      if (r.status === 'rejected') throw new Error(JSON.stringify(r));
      return r.id as string;
    });
  };
  /** The scores of a run, through the scores list. */
  const scoresOf = async (runId: string): Promise<Json[]> =>
    ok(await ctx.request('GET', `/v1/projects/${project.id}/scores?runId=${encodeURIComponent(runId)}&limit=100`, { token: viewer.token })).items as Json[];
  const work = () => ctx.app.evaluations.runDue();
  return { owner, admin, member, viewer, project, base, call, rule, get, ingest, scoresOf, work };
}

let runSeq = 0;
/** A finished run with this output (and more fields). */
export const finished = (outputs: unknown, extra: Json = {}): Json => {
  const start = Date.parse('2026-11-26T10:00:00.000Z') + runSeq++ * 10;
  return {
    name: 'answer',
    kind: 'llm',
    status: 'succeeded',
    startTime: new Date(start).toISOString(),
    endTime: new Date(start + ((extra.latency as number | undefined) ?? 500)).toISOString(),
    inputs: { question: 'q' },
    outputs,
    ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'latency')),
  };
};
