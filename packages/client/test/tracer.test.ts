/** The SDK tracer: the run tree under concurrency, streamed completions, a bounded queue, an unreachable server. */
import { describe, expect, it, vi } from 'vitest';
import { Sightline, SightlineNetworkError, traceChatCompletion, wrapOpenAI } from '../src/index.js';
import { allRuns, describeSdk, sleep, startProxy } from './client.test-support.js';

describeSdk((sdk) => {
  describe('the tracer', () => {
    it('builds the right parent/child tree under concurrency, across batches, with errors and an OpenAI-style call', async () => {
      const project = await sdk.client.projects.create({ name: 'traced' });
      const tracer = sdk.client.tracer(project.id, { batchSize: 3, flushIntervalMs: 10 });
      const jitter = () => sleep(Math.floor(Math.random() * 15));
      const openai = {
        chat: {
          completions: {
            create: async (params: { model: string; messages: unknown[]; stream?: boolean }) => {
              await jitter();
              return {
                id: 'cmpl',
                model: `${params.model}-2024-08-06`,
                choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
                usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
              };
            },
          },
        },
        models: { list: () => ['gpt-4o'] },
      };
      const traced = wrapOpenAI(openai, tracer);
      expect(traced.models.list()).toEqual(['gpt-4o']);

      const request = (r: number) =>
        tracer.trace(
          `request-${r}`,
          async (root) => {
            root.addMetadata({ request: r });
            const children = await Promise.all(
              [0, 1, 2].map((i) =>
                tracer.trace(
                  `step-${r}-${i}`,
                  async () => {
                    await jitter();
                    const leaves = await Promise.all(
                      [0, 1].map((j) => tracer.trace(`leaf-${r}-${i}-${j}`, async () => (await jitter(), { r, i, j }), { kind: 'tool' })),
                    );
                    if (i === 2) await traced.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `q${r}` }] });
                    return leaves.length;
                  },
                  { inputs: { i } },
                ),
              ),
            );
            await expect(tracer.trace(`failing-${r}`, async () => Promise.reject(new Error(`boom ${r}`)))).rejects.toThrow(`boom ${r}`);
            return { children };
          },
          { kind: 'agent', tags: ['sdk-test'], inputs: { r } },
        );
      const outputs = await Promise.all([0, 1, 2, 3].map(request));
      expect(outputs).toEqual(Array(4).fill({ children: [2, 2, 2] }));
      await tracer.shutdown();
      expect(tracer.stats).toMatchObject({ rejected: 0, dropped: 0, sent: 4 * (1 + 3 + 6 + 1 + 1) });

      const runs = await allRuns(sdk.client, project.id);
      expect(runs).toHaveLength(4 * 12);
      const byId = new Map(runs.map((run) => [run.id, run]));
      const byName = new Map(runs.map((run) => [run.name, run]));
      for (let r = 0; r < 4; r++) {
        const root = byName.get(`request-${r}`)!;
        expect(root).toMatchObject({
          kind: 'agent',
          parentRunId: null,
          traceId: root.id,
          status: 'succeeded',
          tags: ['sdk-test'],
          inputs: { r },
          outputs: { children: [2, 2, 2] },
          metadata: { request: r },
        });
        for (let i = 0; i < 3; i++) {
          const step = byName.get(`step-${r}-${i}`)!;
          expect(step).toMatchObject({ parentRunId: root.id, traceId: root.id, inputs: { i }, outputs: 2, kind: 'chain' });
          for (let j = 0; j < 2; j++) {
            expect(byName.get(`leaf-${r}-${i}-${j}`)).toMatchObject({ parentRunId: step.id, traceId: root.id, kind: 'tool', outputs: { r, i, j } });
          }
          expect(Date.parse(step.startTime)).toBeGreaterThanOrEqual(Date.parse(root.startTime));
          expect(Date.parse(step.endTime!)).toBeLessThanOrEqual(Date.parse(root.endTime!));
        }
        expect(byName.get(`failing-${r}`)).toMatchObject({ parentRunId: root.id, status: 'failed', error: `Error: boom ${r}`, outputs: null });
      }
      const llm = runs.filter((run) => run.kind === 'llm');
      expect(llm).toHaveLength(4);
      for (const call of llm) {
        const parent = byId.get(call.parentRunId!)!;
        expect(parent.name).toMatch(/^step-\d-2$/);
        expect(call).toMatchObject({
          name: 'openai.chat.completions.create',
          model: 'gpt-4o-2024-08-06',
          usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
          traceId: parent.traceId,
        });
        expect(call.outputs).toEqual({ choices: [{ message: { role: 'assistant', content: 'hi' }, finishReason: 'stop' }] });
        expect(call.inputs).toMatchObject({ model: 'gpt-4o', messages: [{ role: 'user' }] });
      }
    });

    it('records a streamed chat completion when it has been read, and nests by explicit parent without async context', async () => {
      const project = await sdk.client.projects.create({ name: 'streamed' });
      const tracer = sdk.client.tracer(project.id, { flushIntervalMs: 0 });
      async function* chunks() {
        yield { model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] };
        yield { model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] };
        yield { model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } };
      }
      const parent = tracer.start('conversation', { kind: 'chain', parent: null });
      const params = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true };
      const stream = await traceChatCompletion(tracer, params, () => chunks(), { parent });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Hello');
      await parent.trace('explicit-child', async (run) => {
        run.setOutputs({ done: true });
        run.setUsage({ promptTokens: 1, completionTokens: 1 });
      });
      parent.end({ turns: 1 });
      await tracer.shutdown();
      const runs = await allRuns(sdk.client, project.id);
      const conversation = runs.find((r) => r.name === 'conversation')!;
      expect(conversation).toMatchObject({ outputs: { turns: 1 }, parentRunId: null });
      expect(runs.find((r) => r.kind === 'llm')).toMatchObject({
        parentRunId: conversation.id,
        model: 'gpt-4o-mini',
        usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
        outputs: { choices: [{ message: { role: 'assistant', content: 'Hello' }, finishReason: 'stop' }] },
      });
      expect(runs.find((r) => r.name === 'explicit-child')).toMatchObject({ parentRunId: conversation.id, outputs: { done: true }, usage: { totalTokens: 2 } });
    });

    it('keeps its queue bound under a burst: drops with a warning instead of growing', async () => {
      const project = await sdk.client.projects.create({ name: 'burst' });
      const slow = await startProxy(sdk.server.url, () => ({ delayMs: 100 }));
      try {
        const c = new Sightline(sdk.options({ baseUrl: slow.url }));
        const dropped: string[] = [];
        const tracer = c.tracer(project.id, {
          maxQueue: 100,
          batchSize: 50,
          flushIntervalMs: 5,
          onDrop: (run, reason) => dropped.push(`${run.name}:${reason}`),
        });
        let peak = 0;
        for (let burst = 0; burst < 20; burst++) {
          for (let i = 0; i < 50; i++) {
            tracer.enqueue({ name: `r${burst}-${i}`, kind: 'custom', startTime: new Date().toISOString() });
            peak = Math.max(peak, tracer.size);
          }
          await sleep(10);
        }
        // Traced runs too: they count against the same bound.
        await Promise.all(
          Array.from({ length: 30 }, (_, k) =>
            tracer.trace(`t${k}`, () => Promise.all([1, 2, 3].map((j) => tracer.trace(`t${k}-${j}`, () => (peak = Math.max(peak, tracer.size)))))),
          ),
        );
        peak = Math.max(peak, tracer.size);
        await tracer.shutdown();
        expect(peak).toBeLessThanOrEqual(100);
        expect(dropped.length).toBeGreaterThan(0);
        expect(dropped.every((d) => d.endsWith(':queue_full'))).toBe(true);
        expect(tracer.stats.dropped).toBe(dropped.length);
        expect(tracer.stats.sent + tracer.stats.dropped).toBe(1000 + 30 * 4);
        expect(tracer.stats.rejected).toBe(0);
        expect(await allRuns(sdk.client, project.id)).toHaveLength(tracer.stats.sent);
        expect(tracer.enqueue({ name: 'late', kind: 'custom', startTime: new Date().toISOString() })).toBeNull();
        expect(dropped.at(-1)).toBe('late:shut_down');
      } finally {
        await slow.close();
      }

      // Without onDrop: console.warn, at most once per 10 s however many are dropped.
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      try {
        const quiet = sdk.client.tracer(project.id, { maxQueue: 10, flushIntervalMs: 0, batchSize: 1000 });
        for (let i = 0; i < 500; i++) quiet.enqueue({ name: 'w', kind: 'custom', startTime: new Date().toISOString() });
        expect(quiet.size).toBe(10);
        expect(quiet.stats.dropped).toBe(490);
        expect(warn).toHaveBeenCalledTimes(1);
        expect(String(warn.mock.calls[0]![0])).toMatch(/dropped 1 run.*queue is full \(maxQueue 10\)/);
        await quiet.shutdown();
      } finally {
        warn.mockRestore();
      }
    });

    it('keeps runs queued when the server cannot be reached, and sends them once it can', async () => {
      const project = await sdk.client.projects.create({ name: 'outage' });
      let down = true;
      const proxy = await startProxy(sdk.server.url, () => (down ? 'drop' : 'forward'));
      try {
        const errors: unknown[] = [];
        const c = new Sightline(sdk.options({ baseUrl: proxy.url, retries: 1 }));
        const tracer = c.tracer(project.id, { flushIntervalMs: 0, onError: (e) => errors.push(e) });
        const ids = [0, 1, 2].map((i) => tracer.enqueue({ name: `q${i}`, kind: 'custom', startTime: new Date().toISOString() }));
        await expect(tracer.flush()).rejects.toBeInstanceOf(SightlineNetworkError);
        expect(tracer.size).toBe(3);
        down = false;
        await tracer.flush();
        expect(tracer.size).toBe(0);
        expect((await allRuns(sdk.client, project.id)).map((r) => r.id).sort()).toEqual([...ids].sort());
        expect(errors).toEqual([]); // flush() itself rejected: onError is for background sends

        // A run the server refuses is reported (onError, onDrop 'rejected'), and does not sink its batch.
        const refused: string[] = [];
        const strict = c.tracer(project.id, {
          flushIntervalMs: 0,
          onError: (e) => errors.push(e),
          onDrop: (run, reason) => refused.push(`${run.name}:${reason}`),
        });
        strict.enqueue({ name: 'backwards', kind: 'custom', status: 'succeeded', startTime: '2026-11-21T10:00:01.000Z', endTime: '2026-11-21T10:00:00.000Z' });
        strict.enqueue({ name: 'fine', kind: 'custom', startTime: '2026-11-21T10:00:00.000Z' });
        errors.length = 0;
        await strict.shutdown();
        expect(strict.stats).toMatchObject({ sent: 1, rejected: 1, dropped: 0 });
        expect(refused).toEqual(['backwards:rejected']);
        expect(String((errors[0] as Error).message)).toMatch(/1 run\(s\) rejected: run_\w+: endTime must not be before startTime/);
        await tracer.shutdown();
      } finally {
        await proxy.close();
      }
    });
  });
});
