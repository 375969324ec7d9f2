import { expect, it } from 'vitest';
import type { FieldValue, RunValuesQuery } from '../src/index.js';
import { countingFetch, describeSdk, expectProblem } from './client.test-support.js';
import { Sightline } from '../src/index.js';

describeSdk((sdk) => {
  it('lists the distinct values of run fields and score names for filter pickers, page by page', async () => {
    const project = await sdk.client.projects.create({ name: `values-${Date.now()}` });
    const names = Array.from({ length: 12 }, (_, i) => `step-${String(i).padStart(2, '0')}`);
    await sdk.client.runs.batch(project.id, [
      ...names.map((name, i) => ({ id: `r${i}`, name, kind: 'llm' as const, startTime: '2026-11-20T10:00:00Z', sessionId: `chat-${i % 3}` })),
      { id: 'tagged', name: 'Agent', kind: 'agent', startTime: '2026-11-20T10:00:00Z', tags: ['prod'], model: 'gpt-4o', metadata: { env: 'prod', attempt: 2 } },
    ]);
    await sdk.client.scores.batch(project.id, [
      { runId: 'r0', name: 'tone', value: 'friendly' },
      { runId: 'r1', name: 'helpfulness', value: 0.5 },
      { runId: 'r2', name: 'tone', value: 'curt' },
    ]);

    const values = async (query: RunValuesQuery, limit?: number) =>
      (await sdk.client.runs.values(project.id, query, limit === undefined ? {} : { limit }).toArray()).map((v: FieldValue) => v.value);
    expect(await values({ field: 'name' })).toEqual(['Agent', ...names]);
    expect(await values({ field: 'sessionId' })).toEqual(['chat-0', 'chat-1', 'chat-2']);
    expect(await values({ field: 'tag' })).toEqual(['prod']);
    expect(await values({ field: 'model' })).toEqual(['gpt-4o']);
    expect(await values({ field: 'metadataKey' })).toEqual(['attempt', 'env']);
    expect(await values({ field: 'metadataValue', key: 'attempt' })).toEqual(['2']);
    expect(await values({ field: 'name', prefix: 'step-1' })).toEqual(['step-10', 'step-11']);

    // A walk follows the cursors: 13 names at 5 a page is three requests.
    const { fetch, seen } = countingFetch();
    const client = new Sightline(sdk.options({ fetch }));
    expect((await client.runs.values(project.id, { field: 'name' }, { limit: 5 }).toArray()).map((v) => v.value)).toEqual(['Agent', ...names]);
    expect(seen.map((s) => [s.url.pathname, s.url.searchParams.get('field'), s.url.searchParams.has('cursor')])).toEqual([
      [`/v1/projects/${project.id}/runs/values`, 'name', false],
      [`/v1/projects/${project.id}/runs/values`, 'name', true],
      [`/v1/projects/${project.id}/runs/values`, 'name', true],
    ]);

    expect((await sdk.client.scores.values(project.id).toArray()).map((v) => v.value)).toEqual(['helpfulness', 'tone']);
    expect((await sdk.client.scores.values(project.id, { field: 'name', prefix: 't' }).toArray()).map((v) => v.value)).toEqual(['tone']);

    // What the types refuse, the server refuses too.
    // @ts-expect-error metadataValue names its key
    await expectProblem(sdk.client.runs.values(project.id, { field: 'metadataValue' }).toArray(), 400, 'validation');
    // @ts-expect-error only metadataValue takes a key
    await expectProblem(sdk.client.runs.values(project.id, { field: 'name', key: 'env' }).toArray(), 400, 'validation');
    // @ts-expect-error not a field
    await expectProblem(sdk.client.runs.values(project.id, { field: 'status' }).toArray(), 400, 'validation');
    await expectProblem(sdk.client.runs.values('prj_nope', { field: 'name' }).toArray(), 404, 'not-found');
  });
});
