import { expect, it } from 'vitest';
import { Sightline, SightlineNetworkError, type RunCreate } from '../src/index.js';
import { describeSdk, expectProblem } from './client.test-support.js';

/**
 * A fetch whose export answers are cut: `plan(n)` for the n-th export request says after how many
 * bytes its body fails (`cut`) or stops sending without ending (`stall`); null forwards it whole.
 */
function faultyFetch(plan: (n: number) => { cut: number } | { stall: number } | null) {
  const exports: URL[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(String(input));
    if (!url.pathname.endsWith('/export')) return response;
    const fault = plan(exports.push(url));
    if (fault === null || !response.ok) return response;
    const limit = 'cut' in fault ? fault.cut : fault.stall;
    const reader = response.body!.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= limit) {
          if ('cut' in fault) controller.error(new TypeError('terminated'));
          else await new Promise(() => {}); // nothing more, ever
          return;
        }
        const { done, value } = await reader.read();
        if (done) return controller.close();
        const part = value.subarray(0, limit - sent);
        sent += part.length;
        controller.enqueue(part);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: wrapped, exports };
}

describeSdk((sdk) => {
  let projectId: string;
  let listed: string[];
  const runs: RunCreate[] = Array.from({ length: 250 }, (_, i) => ({
    name: i % 7 === 0 ? 'refund' : 'chat',
    kind: 'llm',
    status: i % 7 === 0 ? 'failed' : 'succeeded',
    startTime: new Date(Date.UTC(2026, 10, 20, 10, 0, i)).toISOString(),
    endTime: new Date(Date.UTC(2026, 10, 20, 10, 0, i, 500)).toISOString(),
    inputs: { messages: [{ role: 'user', content: `question ${i} ${'x'.repeat(200)}` }] },
    outputs: { content: `answer ${i}` },
    ...(i % 7 === 0 ? { error: 'refund refused' } : {}),
  }));

  it('exports every run the filters select, in the list order, reporting a cursor every 100 runs', async () => {
    projectId = (await sdk.client.projects.create({ name: `export-${Date.now()}` })).id;
    await sdk.client.runs.batch(projectId, runs);
    listed = (await sdk.client.runs.list(projectId, {}, { limit: 100 }).toArray()).map((r) => r.id);
    expect(listed).toHaveLength(250);

    const cursors: [string, number][] = [];
    const exported = sdk.client.runs.export(projectId, {}, { onCursor: (cursor, n) => cursors.push([cursor, n]) });
    const ids = (await exported.toArray()).map((r) => r.id);
    expect(ids).toEqual(listed);
    expect(cursors.map(([, n]) => n)).toEqual([100, 200]);
    expect(exported.count).toBe(250);

    const failed = await sdk.client.runs.export(projectId, { status: 'failed', q: 'refund' }).toArray();
    expect(failed.map((r) => r.id)).toEqual((await sdk.client.runs.list(projectId, { status: 'failed', q: 'refund' }).toArray()).map((r) => r.id));
    expect(failed).toHaveLength(36);
    expect(failed.every((r) => r.status === 'failed' && r.error === 'refund refused')).toBe(true);

    const traces = await sdk.client.traces.export(projectId, { status: 'failed' }).toArray();
    expect(traces.map((t) => t.traceId)).toEqual((await sdk.client.traces.list(projectId, { status: 'failed' }).toArray()).map((t) => t.traceId));
  });

  it('resumes a stream cut mid-line from its last cursor: no run twice, none missed', async () => {
    // The whole export as the server sends it, to cut it at known places.
    const whole = await (
      await fetch(`${sdk.server.url}/v1/projects/${projectId}/runs/export`, { headers: { authorization: `Bearer ${sdk.owner.token}` } })
    ).text();
    const lines = whole.split('\n');
    const bytesBefore = (line: number) => Buffer.byteLength(lines.slice(0, line).join('\n')) + 1;
    // The first answer breaks in the middle of the 161st run's line (after the cursor line at 100); the
    // second (from that cursor: 60 runs already seen, skipped) in the middle of the cursor line at 200.
    const cut1 = bytesBefore(161) + 40;
    const cut2 = Buffer.byteLength(lines.slice(101, 202).join('\n')) - 5;
    expect(lines[100]).toMatch(/^\{"cursor":"/);
    const faulty = faultyFetch((n) => (n === 1 ? { cut: cut1 } : n === 2 ? { cut: cut2 } : null));
    const retries: string[] = [];
    const client = new Sightline(sdk.options({ fetch: faulty.fetch, onRetry: (info) => retries.push(info.reason) }));
    const ids = (await client.runs.export(projectId).toArray()).map((r) => r.id);
    expect(ids).toEqual(listed);
    expect(faulty.exports).toHaveLength(3);
    expect(faulty.exports[0]!.searchParams.get('cursor')).toBeNull();
    expect(faulty.exports[1]!.searchParams.get('cursor')).toBeTruthy();
    // The cursor line at 200 was torn, so the third answer starts from the first cursor again.
    expect(faulty.exports[2]!.searchParams.get('cursor')).toBe(faulty.exports[1]!.searchParams.get('cursor'));
    expect(retries).toEqual(['network', 'network']);
  });

  it('gives up a stalled stream after the time limit and resumes it', async () => {
    const faulty = faultyFetch((n) => (n === 1 ? { stall: 30_000 } : null));
    const retries: string[] = [];
    const client = new Sightline(sdk.options({ fetch: faulty.fetch, timeoutMs: 400, onRetry: (info) => retries.push(info.reason) }));
    const ids = (await client.runs.export(projectId).toArray()).map((r) => r.id);
    expect(ids).toEqual(listed);
    expect(retries).toEqual(['timeout']);
  });

  it('starts again from a cursor a stopped export reported', async () => {
    let resumeAt: string | undefined;
    const first = sdk.client.runs.export(projectId, {}, { onCursor: (cursor) => (resumeAt = cursor) });
    const seen: string[] = [];
    for await (const run of first) {
      seen.push(run.id);
      if (seen.length === 130) break; // the process "crashes" here
    }
    expect(first.cursor).toBe(resumeAt);
    const rest = (await sdk.client.runs.export(projectId, {}, { cursor: resumeAt! }).toArray()).map((r) => r.id);
    expect(rest).toEqual(listed.slice(100));
  });

  it('a stream that keeps failing before any run ends in a SightlineNetworkError; a bad filter is a problem at once', async () => {
    const faulty = faultyFetch(() => ({ cut: 10 }));
    const client = new Sightline(sdk.options({ fetch: faulty.fetch, retries: 2 }));
    const error = await client.runs
      .export(projectId)
      .toArray()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SightlineNetworkError);
    expect((error as SightlineNetworkError).kind).toBe('connection');
    expect(faulty.exports).toHaveLength(3);

    // @ts-expect-error a status outside the enum, sent anyway: the server's 400 is what is tested
    await expectProblem(sdk.client.runs.export(projectId, { status: 'done' }).toArray(), 400, 'validation');
    await expectProblem(sdk.client.runs.export('prj_missing').toArray(), 404, 'not-found');
  });
});
