import { expect, it } from 'vitest';
import { describeSdk, expectProblem } from './client.test-support.js';

describeSdk((sdk) => {
  it('creates, reads, lists, changes and deletes evaluator rules; refuses a catastrophic pattern and a taken name', async () => {
    const project = await sdk.client.projects.create({ name: `evaluators-${Date.now()}` });
    const rule = await sdk.client.evaluators.create(project.id, {
      name: 'Polite',
      filter: { kind: 'llm', 'metadata.env': 'prod' },
      sampleRate: 0.2,
      evaluator: { type: 'regex', pattern: '\\b(sorry|apologi[sz]e)\\b', flags: 'i', mode: 'no_match' },
      scoreName: 'no-apology',
    });
    expect(rule).toMatchObject({
      id: expect.stringMatching(/^evr_/),
      name: 'Polite',
      filter: { kind: 'llm', 'metadata.env': 'prod' },
      sampleRate: 0.2,
      enabled: true,
      counts: { pending: 0, done: 0, failed: 0, skipped: 0 },
      lastError: null,
    });
    await expectProblem(sdk.client.evaluators.create(project.id, { name: 'Polite', evaluator: { type: 'json_valid' }, scoreName: 'x' }), 409, 'conflict');
    await expectProblem(
      sdk.client.evaluators.create(project.id, { name: 'Slow', evaluator: { type: 'regex', pattern: '(a+)+$' }, scoreName: 'x' }),
      400,
      'validation',
    );
    const second = await sdk.client.evaluators.create(project.id, { name: 'Fast', evaluator: { type: 'latency', maxMs: 2000 }, scoreName: 'fast' });
    expect((await sdk.client.evaluators.list(project.id).toArray()).map((r) => r.id)).toEqual([second.id, rule.id]);
    expect(await sdk.client.evaluators.get(project.id, rule.id)).toEqual(rule);
    const changed = await sdk.client.evaluators.update(project.id, rule.id, { enabled: false, sampleRate: 1 });
    expect(changed).toMatchObject({ enabled: false, sampleRate: 1, name: 'Polite' });
    await sdk.client.evaluators.delete(project.id, rule.id);
    await expectProblem(sdk.client.evaluators.get(project.id, rule.id), 404, 'not-found');
  });
});
