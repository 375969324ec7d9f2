/** The SDK tracer: a run's session, end user, provider and token details; children sent before their parent ends. */
import { describe, expect, it } from 'vitest';
import { allRuns, describeSdk, sleep } from './client.test-support.js';

describeSdk((sdk) => {
  describe('the tracer', () => {
    it('sends a child as soon as it ends, before its parent; session and user pass down to children', async () => {
      const project = await sdk.client.projects.create({ name: 'traced-context' });
      const tracer = sdk.client.tracer(project.id, { batchSize: 1, flushIntervalMs: 5 });
      const root = tracer.start('conversation turn', { kind: 'agent', sessionId: 'conversation-7', userId: 'user-42', inputs: 'Where is my order?' });
      await root.trace('answer', async (llm) => {
        llm.setModel('claude-sonnet-4', 'anthropic');
        llm.setUsage({ promptTokens: 100, completionTokens: 20, cacheReadTokens: 80, reasoningTokens: 5 });
        return 'On its way.';
      });
      // The child is stored while its parent is still running.
      let stored = await allRuns(sdk.client, project.id);
      for (let i = 0; i < 100 && stored.length === 0; i++) {
        await sleep(10);
        stored = await allRuns(sdk.client, project.id);
      }
      expect(stored.map((r) => r.name)).toEqual(['answer']);
      expect(stored[0]).toMatchObject({
        parentRunId: root.id,
        traceId: root.id,
        sessionId: 'conversation-7',
        userId: 'user-42',
        model: 'claude-sonnet-4',
        provider: 'anthropic',
        outputs: 'On its way.',
        usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120, cacheReadTokens: 80, reasoningTokens: 5 },
      });
      root.end(['a', 'list']);
      await tracer.shutdown();
      const runs = await allRuns(sdk.client, project.id);
      expect(runs.find((r) => r.id === root.id)).toMatchObject({
        inputs: 'Where is my order?',
        outputs: ['a', 'list'],
        sessionId: 'conversation-7',
        parentRunId: null,
      });
      expect(tracer.stats).toMatchObject({ sent: 2, rejected: 0, dropped: 0 });

      // The trace, through the SDK: its totals and its runs in tree order.
      const [trace] = await sdk.client.traces.list(project.id, { sessionId: 'conversation-7' }).toArray();
      expect(trace).toMatchObject({
        traceId: root.id,
        runCount: 2,
        input: 'Where is my order?',
        output: '["a","list"]',
        usage: { cacheReadTokens: 80, reasoningTokens: 5 },
      });
      const detail = await sdk.client.traces.get(project.id, root.id);
      expect(detail.runs.map((r) => [r.name, r.depth])).toEqual([
        ['conversation turn', 0],
        ['answer', 1],
      ]);
      const conversation = await sdk.client.sessions.get(project.id, 'conversation-7');
      expect(conversation.session).toMatchObject({ sessionId: 'conversation-7', traceCount: 1, runCount: 2, userId: 'user-42' });
      expect(conversation.traces.map((t) => t.traceId)).toEqual([root.id]);
      expect((await sdk.client.endUsers.list(project.id).toArray()).map((u) => u.userId)).toEqual(['user-42']);
    });
  });
});
