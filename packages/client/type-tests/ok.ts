// Correct uses of the SDK: this file must compile (packages/client/test/types.test.ts).
import { Sightline, SightlineProblem, type Monitor, type PromptVersion, type Run, type RunCreate } from '../src/index.js';

declare const client: Sightline;

export async function ok(projectId: string): Promise<void> {
  const input: RunCreate = {
    name: 'ChatOpenAI',
    kind: 'llm',
    startTime: '2026-11-21T10:15:30.123Z',
    usage: { promptTokens: 1, completionTokens: 2 },
    inputs: { q: 'x' },
    sessionId: 'conversation-1',
    userId: 'user-1',
  };
  const run: Run = await client.runs.create(projectId, input);
  const status: 'running' | 'succeeded' | 'failed' = run.status;
  const latency: number | null = run.latencyMs;
  const question: unknown = run.inputs;
  const session: string | null = run.sessionId;
  const cached: number | undefined = run.usage?.cacheReadTokens;
  for await (const r of client.runs.list(projectId, { status: 'failed', tag: ['prod'], parentRunId: null, 'metadata.customer': 'c_17' })) void r.id;
  for await (const r of client.runs.export(projectId, { q: 'refund', 'metadata.customer': 'c_17' }, { onCursor: (c: string) => void c })) void r.costSource;
  for await (const t of client.traces.export(projectId, { status: 'failed' })) void t.rootRunId;
  for await (const t of client.traces.list(projectId, { sessionId: 'conv_42' })) void t.rootScores[0]?.value;
  for await (const page of client.projects.list({ name: 'support' }, { limit: 100 }).pages()) void page.nextCursor;
  const { results } = await client.runs.batch(projectId, [input]);
  void results[0]?.problem?.detail;
  const version: PromptVersion = await client.prompts.versions.get('support-reply', 'production');
  const monitor: Monitor = await client.monitors.create(projectId, { name: 'slow', metric: 'latency_p95', window: '15m', threshold: { op: '>', value: 4000 } });
  await client.runs.patch(projectId, run.id, { status: 'succeeded', outputs: { answer: '…' } });
  try {
    await client.me.get();
  } catch (error) {
    if (error instanceof SightlineProblem) void [error.type, error.title, error.status, error.detail, error.errors, error.requestId];
  }
  void [status, latency, question, session, cached, version, monitor];
}
