import { expect, it } from 'vitest';
import type { Json } from '../../../test/helpers/json.js';
import table from '../models/prices.json' with { type: 'json' };
import { describeRuns, minimal, projectFor } from './runs.test-support.js';

/** Costs computed at ingest from the price table (docs/prices-and-costs.md: Model prices), and costs the client gives. */
describeRuns('costs', (ctx) => {
  const usage = { promptTokens: 1_000_000, completionTokens: 200_000 };
  /** The table's row of a model, as shipped (the expectation is computed from the data, not by the code under test). */
  const row = (model: string) => {
    const found = table.models.find((m) => m.model === model);
    if (!found) throw new Error(`no built-in row ${model}`);
    return found;
  };
  const expected = (model: string, u = usage) => (u.promptTokens * row(model).inputPrice + u.completionTokens * row(model).outputPrice) / 1_000_000;
  const owner = async (organizationId: string) => ctx.make.caller({ role: 'admin', organizationId });

  it("prices a run without a cost from its model and usage, for every built-in provider's models, and says from which price", async () => {
    const p = await projectFor(ctx);
    const byProvider = new Map<string, string>();
    for (const m of table.models) if (m.outputPrice > 0 && !byProvider.has(m.provider)) byProvider.set(m.provider, m.model);
    expect([...byProvider.keys()].sort()).toEqual(['alibaba', 'anthropic', 'cohere', 'deepseek', 'google', 'groq', 'mistral', 'openai', 'xai']);
    for (const [provider, model] of byProvider) {
      const res = await p.create(minimal({ model, provider, usage }));
      expect(res.statusCode, res.body).toBe(201);
      const run = res.json();
      expect(run.cost, model).toBeCloseTo(expected(model), 10);
      expect(run.costSource).toBe('computed');
      expect(run.price).toMatchObject({ source: 'builtin', id: null, model, inputPrice: row(model).inputPrice, outputPrice: row(model).outputPrice });
    }
  });

  it('matches dated and versioned names, keeps a client cost as sent, and leaves unknown models and runs without usage unpriced', async () => {
    const p = await projectFor(ctx);
    const dated = (await p.create(minimal({ model: 'gpt-4o-2024-08-06', usage }))).json();
    expect(dated).toMatchObject({ cost: expected('gpt-4o'), costSource: 'computed', price: { model: 'gpt-4o' } });
    const bedrock = (await p.create(minimal({ model: 'us.anthropic.claude-3-5-sonnet-20241022-v2:0', usage }))).json();
    expect(bedrock).toMatchObject({ costSource: 'computed', price: { model: 'claude-3-5-sonnet', provider: 'anthropic' } });
    const client = (await p.create(minimal({ model: 'gpt-4o', usage, cost: 0.000123 }))).json();
    expect(client).toMatchObject({ cost: 0.000123, costSource: 'client', price: null });
    const zero = (await p.create(minimal({ model: 'gpt-4o', usage, cost: 0 }))).json();
    expect(zero).toMatchObject({ cost: 0, costSource: 'client', price: null });
    expect((await p.create(minimal({ model: 'in-house-llm-7b', usage }))).json()).toMatchObject({ cost: null, costSource: null, price: null });
    expect((await p.create(minimal({ model: 'gpt-4o' }))).json()).toMatchObject({ cost: null, costSource: null, price: null });
  });

  it('estimates the tokens of a model run that reports none from its texts (o200k_base), marks them estimated, and prices them', async () => {
    const p = await projectFor(ctx);
    const inputs = { messages: [{ role: 'user', parts: [{ type: 'text', content: 'Hello, world!' }] }] };
    const outputs = { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello, world! How are you?' }] }] };
    const run = (await p.create(minimal({ model: 'gpt-4o', inputs, outputs }))).json();
    // The roles and part types are not text the model read: 4 tokens in, 8 out.
    expect(run.usage).toEqual({ promptTokens: 4, completionTokens: 8, totalTokens: 12, estimated: true });
    expect(run).toMatchObject({ costSource: 'computed', price: { model: 'gpt-4o' } });
    expect(run.cost).toBeCloseTo(expected('gpt-4o', { promptTokens: 4, completionTokens: 8 }), 12);
    const embedding = (await p.create(minimal({ kind: 'embedding', model: 'text-embedding-3-small', inputs: ['Hello, world!', 'How are you?'] }))).json();
    expect(embedding.usage).toEqual({ promptTokens: 8, completionTokens: 0, totalTokens: 8, estimated: true });
    // Reported usage is kept as sent; runs that are not model runs, or have no text, are not estimated.
    expect((await p.create(minimal({ model: 'gpt-4o', inputs, usage: { promptTokens: 7, completionTokens: 1 } }))).json().usage).toEqual({
      promptTokens: 7,
      completionTokens: 1,
      totalTokens: 8,
    });
    expect((await p.create(minimal({ kind: 'chain', inputs, outputs }))).json().usage).toBeNull();
    expect((await p.create(minimal({ model: 'gpt-4o', inputs: {}, outputs: null }))).json().usage).toBeNull();
  });

  it('a trace, its session and its end user say how many of their tokens, and how much of their cost, are estimated; a stream that ends is estimated again from all its texts', async () => {
    const p = await projectFor(ctx);
    const said = { messages: [{ role: 'user', parts: [{ type: 'text', content: 'Hello, world!' }] }] };
    const answer = { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello, world! How are you?' }] }] };
    const base = `/v1/projects/${p.id}`;
    const get = async (path: string) => {
      const res = await ctx.request('GET', `${base}${path}`, { token: p.caller.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    await p.seed([
      { id: 'root', name: 'chat', kind: 'chain', traceId: 't-est', startTime: '2026-11-01T00:00:00.000Z', sessionId: 's-est', userId: 'u-est' },
      // Streamed: running, no usage; its prompt is estimated now, its answer when it ends.
      {
        id: 'stream',
        name: 'llm',
        kind: 'llm',
        traceId: 't-est',
        parentRunId: 'root',
        model: 'gpt-4o',
        status: 'running',
        startTime: '2026-11-01T00:00:01.000Z',
        inputs: said,
      },
      {
        id: 'told',
        name: 'llm',
        kind: 'llm',
        traceId: 't-est',
        parentRunId: 'root',
        model: 'gpt-4o',
        startTime: '2026-11-01T00:00:02.000Z',
        inputs: said,
        usage: { promptTokens: 100, completionTokens: 50 },
      },
    ]);
    const started = (await p.get('stream')).json();
    expect(started.usage).toEqual({ promptTokens: 4, completionTokens: 0, totalTokens: 4, estimated: true });
    const ended = await p.patch('stream', { status: 'succeeded', outputs: answer });
    expect(ended.statusCode, ended.body).toBe(200);
    const stream = ended.json();
    expect(stream.usage).toEqual({ promptTokens: 4, completionTokens: 8, totalTokens: 12, estimated: true });
    expect(stream.cost).toBeCloseTo(expected('gpt-4o', { promptTokens: 4, completionTokens: 8 }), 12);
    const told = (await p.get('told')).json();
    const totals = {
      usage: expect.objectContaining({ totalTokens: 162, estimatedTokens: 12 }),
      cost: expect.closeTo(stream.cost + told.cost, 12),
      estimatedCost: expect.closeTo(stream.cost, 12),
    };
    expect((await get('/traces/t-est')).trace).toMatchObject(totals);
    expect((await get('/sessions/s-est')).session).toMatchObject(totals);
    expect((await get('/users/u-est')).user).toMatchObject(totals);
    const listed = (await get('/traces')).items.find((t: Json) => t.traceId === 't-est');
    expect(listed).toMatchObject(totals);
    expect((await get('/sessions')).items[0]).toMatchObject({ sessionId: 's-est', ...totals });
    expect((await get('/users')).items[0]).toMatchObject({ userId: 'u-est', ...totals });
    // Usage the client reports is never replaced by an estimate.
    await p.seed([
      {
        id: 'own',
        name: 'llm',
        kind: 'llm',
        traceId: 't-est',
        model: 'gpt-4o',
        status: 'running',
        startTime: '2026-11-01T00:00:03.000Z',
        inputs: said,
        usage: { promptTokens: 9, completionTokens: 0 },
      },
    ]);
    expect((await p.patch('own', { status: 'succeeded', outputs: answer })).json().usage).toEqual({ promptTokens: 9, completionTokens: 0, totalTokens: 9 });
    expect((await get('/traces/t-est')).trace.usage).toMatchObject({ totalTokens: 171, estimatedTokens: 12 });
  });

  it('prices cache reads, cache writes and reasoning tokens at their own prices', async () => {
    const p = await projectFor(ctx);
    const details = { promptTokens: 1000, completionTokens: 500, cacheReadTokens: 400, reasoningTokens: 100 };
    const run = (await p.create(minimal({ model: 'gpt-4o', usage: details }))).json();
    const r = row('gpt-4o');
    const micro = 600 * r.inputPrice + 400 * r.cacheReadPrice! + 400 * r.outputPrice + 100 * (r.reasoningPrice ?? r.outputPrice);
    expect(run.cost).toBeCloseTo(micro / 1_000_000, 12);
  });

  it("uses the organization's price over the built-in one, from the date it takes effect, without rewriting earlier runs", async () => {
    const p = await projectFor(ctx);
    const admin = await owner(p.caller.organizationId);
    const price = await ctx.request('POST', '/v1/models', {
      token: admin.token,
      body: { model: 'gpt-4o', inputPrice: 1, outputPrice: 2, effectiveFrom: '2026-11-21T11:00:00.000Z' },
    });
    expect(price.statusCode, price.body).toBe(201);
    const before = (await p.create(minimal({ model: 'gpt-4o', usage, startTime: '2026-11-21T10:59:59.999Z' }))).json();
    expect(before).toMatchObject({ cost: expected('gpt-4o'), price: { source: 'builtin' } });
    const sent = minimal({ id: 'priced-1', model: 'gpt-4o-2024-11-20', usage, startTime: '2026-11-21T11:00:00.000Z' });
    const after = (await p.create(sent)).json();
    expect(after).toMatchObject({ cost: 1.4, costSource: 'computed', price: { source: 'organization', id: price.json().id, inputPrice: 1, outputPrice: 2 } });
    // Another organization's price is not this one's.
    const other = await projectFor(ctx);
    expect((await other.create(minimal({ model: 'gpt-4o', usage, startTime: '2026-11-21T11:30:00.000Z' }))).json()).toMatchObject({
      price: { source: 'builtin' },
    });
    // A later change of the price leaves the runs stored before it as they were.
    expect((await ctx.request('PATCH', `/v1/models/${price.json().id}`, { token: admin.token, body: { inputPrice: 3 } })).statusCode).toBe(200);
    expect((await p.get(after.id)).json()).toEqual(after);
    // A retry priced differently now is the same run: the cost the server priced is not the client's content.
    const retried = await p.create(sent);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toEqual(after);
  });

  it('prices usage given when the run ends, unless the client gave the cost; metrics and trace totals add computed costs up', async () => {
    const p = await projectFor(ctx);
    const running = (await p.create(minimal({ id: 'c-1', model: 'gpt-4o', status: 'running' }))).json();
    expect(running).toMatchObject({ cost: null, costSource: null });
    const ended = await p.patch('c-1', { status: 'succeeded', endTime: '2026-11-21T10:00:01.000Z', usage });
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json()).toMatchObject({ cost: expected('gpt-4o'), costSource: 'computed', price: { model: 'gpt-4o' } });
    await p.create(minimal({ id: 'c-2', parentRunId: 'c-1', model: 'gpt-4o', status: 'running', cost: 0.5 }));
    const kept = (await p.patch('c-2', { status: 'succeeded', endTime: '2026-11-21T10:00:01.000Z', usage })).json();
    expect(kept).toMatchObject({ cost: 0.5, costSource: 'client', price: null });

    const metrics = (await p.metrics({ from: '2026-11-21T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' })).json() as Json;
    expect((metrics.total as Json).cost).toBeCloseTo(expected('gpt-4o') + 0.5, 10);
    const trace = await ctx.request('GET', `/v1/projects/${p.id}/traces/c-1`, { token: p.caller.token });
    expect(trace.statusCode, trace.body).toBe(200);
    expect(trace.json().trace.cost).toBeCloseTo(expected('gpt-4o') + 0.5, 10);
  });
});
