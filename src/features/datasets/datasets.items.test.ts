import fc from 'fast-check';
import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { describeDatasets } from './datasets.test-support.js';

/** Dataset items: every change a new version, any version read back; adding from a run. */
describeDatasets('items and versions', (ctx, h, s) => {
  const byId = (items: Json[]) => Object.fromEntries(items.map((i) => [i.id, { input: i.input, expectedOutput: i.expectedOutput, version: i.version }]));

  it('adds items (v1), edits one (v2), deletes one (v3), and reads each version exactly', async () => {
    const dataset = await h.dataset(s.member);
    const added = await h.add(s.member, dataset.id, [
      { id: 'refund-1', input: { question: 'Refund?' }, expectedOutput: 'Yes', metadata: { lang: 'en' } },
      { input: 'Hello', expectedOutput: null },
      { input: [1, 2] },
    ]);
    expect(added.version).toBe(1);
    expect(added.items).toHaveLength(3);
    const [refund, hello, list] = added.items as Json[];
    expect(refund).toEqual({
      id: 'refund-1',
      datasetId: dataset.id,
      input: { question: 'Refund?' },
      expectedOutput: 'Yes',
      metadata: { lang: 'en' },
      sourceRunId: null,
      sourceProjectId: null,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(hello!.id).toMatch(/^dsi_[0-9a-z]{26}$/);
    expect(list).toMatchObject({ expectedOutput: null, metadata: {} });

    const edited = ok(await h.call(s.member, 'PATCH', `/v1/datasets/${dataset.id}/items/refund-1`, { expectedOutput: 'Yes, within 30 days' }));
    expect(edited).toMatchObject({
      id: 'refund-1',
      input: { question: 'Refund?' },
      expectedOutput: 'Yes, within 30 days',
      metadata: { lang: 'en' },
      version: 2,
    });
    expect(edited.createdAt).toBe(refund!.createdAt);
    expect((await h.call(s.member, 'DELETE', `/v1/datasets/${dataset.id}/items/${hello!.id}`)).statusCode).toBe(204);
    expect(ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`))).toMatchObject({ version: 3, itemCount: 2 });

    const v1 = {
      'refund-1': { input: { question: 'Refund?' }, expectedOutput: 'Yes', version: 1 },
      [hello!.id]: { input: 'Hello', expectedOutput: null, version: 1 },
    };
    const atList = { [list!.id]: { input: [1, 2], expectedOutput: null, version: 1 } };
    expect(byId(await h.items(s.viewer, dataset.id, 0))).toEqual({});
    expect(byId(await h.items(s.viewer, dataset.id, 1))).toEqual({ ...v1, ...atList });
    const v2 = { ...v1, ...atList, 'refund-1': { input: { question: 'Refund?' }, expectedOutput: 'Yes, within 30 days', version: 2 } };
    expect(byId(await h.items(s.viewer, dataset.id, 2))).toEqual(v2);
    const v3 = Object.fromEntries(Object.entries(v2).filter(([id]) => id !== hello!.id));
    expect(byId(await h.items(s.viewer, dataset.id, 3))).toEqual(v3);
    expect(byId(await h.items(s.viewer, dataset.id))).toEqual(v3);
    // Newest item first; an edit keeps its place (ids of one request ascend in it).
    expect((await h.items(s.viewer, dataset.id, 1)).map((i) => i.id)).toEqual([list!.id, hello!.id, 'refund-1'].sort().reverse());

    const item = (version?: number) =>
      h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}/items/${hello!.id}${version === undefined ? '' : `?version=${version}`}`);
    expect(ok(await item(2))).toMatchObject({ id: hello!.id, input: 'Hello', version: 1 });
    expectProblem(await item(3), 404, 'not-found', `Item ${hello!.id} does not exist in version 3 of this dataset.`);
    expectProblem(await item(), 404, 'not-found', `Item ${hello!.id} does not exist in version 3 of this dataset.`);
    expectProblem(await item(0), 404, 'not-found');
    expectProblem(
      await h.call(s.member, 'PATCH', `/v1/datasets/${dataset.id}/items/${hello!.id}`, { input: 'Hi' }),
      404,
      'not-found',
      `Item ${hello!.id} does not exist in this dataset.`,
    );
    expectProblem(await h.call(s.member, 'DELETE', `/v1/datasets/${dataset.id}/items/${hello!.id}`), 404, 'not-found');
    // A refused change makes no version.
    expect(ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`)).version).toBe(3);
  });

  it('refuses a version the dataset has not reached on the parameter, and binds cursors to the version asked for', async () => {
    const dataset = await h.dataset(s.member);
    await h.add(s.member, dataset.id, [{ input: 1 }, { input: 2 }, { input: 3 }]);
    for (const url of [`/v1/datasets/${dataset.id}/items?version=2`, `/v1/datasets/${dataset.id}/items/x?version=2`]) {
      const problem = expectProblem(await h.call(s.viewer, 'GET', url), 400, 'validation', 'The dataset is at version 1: ask for 0 to 1.');
      expect(problem.errors).toEqual([{ parameter: 'version', detail: 'The dataset is at version 1: ask for 0 to 1.' }]);
    }
    const negative = expectProblem(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}/items?version=-1`), 400, 'validation');
    expect(negative.errors).toEqual([expect.objectContaining({ parameter: 'version' })]);

    const pinned = ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}/items?version=1&limit=1`));
    await h.add(s.member, dataset.id, [{ input: 4 }]);
    const rest = ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}/items?version=1&limit=10&cursor=${pinned.nextCursor}`));
    expect(rest.items.map((i: Json) => i.input)).toEqual([2, 1]);
    expectProblem(
      await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}/items?limit=10&cursor=${pinned.nextCursor}`),
      400,
      'validation',
      'Cursor is malformed.',
    );
    expectProblem(
      await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}/items?version=2&cursor=${pinned.nextCursor}`),
      400,
      'validation',
      'Cursor is malformed.',
    );
  });

  it('refuses an id the dataset has had (409, nothing added), an id given twice, and bad items', async () => {
    const dataset = await h.dataset(s.member);
    await h.add(s.member, dataset.id, [{ id: 'a', input: 1 }]);
    expect((await h.call(s.member, 'DELETE', `/v1/datasets/${dataset.id}/items/a`)).statusCode).toBe(204);
    const items = `/v1/datasets/${dataset.id}/items`;
    const post = (...list: Json[]) => h.call(s.member, 'POST', items, { items: list });
    expectProblem(await post({ id: 'b', input: 2 }, { id: 'a', input: 3 }), 409, 'conflict', 'This dataset already has an item with the id a.');
    const twice = expectProblem(await post({ id: 'c', input: 1 }, { id: 'c', input: 2 }), 400, 'validation');
    expect(twice.errors).toEqual([{ pointer: '/items/1/id', detail: 'Item c is given twice (first at /items/0/id).' }]);
    for (const [body, pointer] of [
      [{ items: [] }, '/items'],
      [{ items: [{ expectedOutput: 1 }] }, '/items/0/input'],
      [{ items: [{ id: 'has space', input: 1 }] }, '/items/0/id'],
      [{ items: [{ input: 1, metadata: 'x' }] }, '/items/0/metadata'],
      [{ items: Array.from({ length: 1001 }, () => ({ input: 1 })) }, '/items'],
    ] as const) {
      const problem = expectProblem(await h.call(s.member, 'POST', items, body), 400, 'validation');
      expect((problem.errors as { pointer: string }[]).map((e) => e.pointer)).toContain(pointer);
    }
    expect(ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`))).toMatchObject({ version: 2, itemCount: 0 });
    const thousand = await h.add(
      s.member,
      dataset.id,
      Array.from({ length: 1000 }, (_, i) => ({ input: i })),
    );
    expect(thousand.version).toBe(3);
    expect(ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`))).toMatchObject({ version: 3, itemCount: 1000 });
    expect(await h.items(s.viewer, dataset.id)).toHaveLength(1000);
  });

  it("adds a run to a dataset: its inputs and outputs unless given, its source set; another organization's run or dataset is a 404", async () => {
    const project = await ctx.make.project(s.owner.organizationId);
    const [runId] = await ctx.make.runs(project.id, 1, () => ({ inputs: { messages: [{ role: 'user', content: 'Refund?' }] }, outputs: { text: 'Yes' } }));
    const dataset = await h.dataset(s.member);
    const url = `/v1/projects/${project.id}/runs/${runId}/dataset-items`;
    const item = ok(await h.call(s.member, 'POST', url, { datasetId: dataset.id }), 201);
    expect(item).toMatchObject({
      datasetId: dataset.id,
      input: { messages: [{ role: 'user', content: 'Refund?' }] },
      expectedOutput: { text: 'Yes' },
      metadata: {},
      sourceRunId: runId,
      sourceProjectId: project.id,
      version: 1,
    });
    const custom = ok(await h.call(s.member, 'POST', url, { datasetId: dataset.id, expectedOutput: null, metadata: { reviewed: true } }), 201);
    expect(custom).toMatchObject({ input: item.input, expectedOutput: null, metadata: { reviewed: true }, version: 2 });

    expectProblem(await h.call(s.viewer, 'POST', url, { datasetId: dataset.id }), 403, 'forbidden');
    expectProblem(await h.call(s.member, 'POST', url, { datasetId: 'ds_missing' }), 404, 'not-found', 'Dataset ds_missing does not exist.');
    expectProblem(await h.call(s.member, 'POST', `/v1/projects/${project.id}/runs/nope/dataset-items`, { datasetId: dataset.id }), 404, 'not-found');
    const outsider = await ctx.make.caller({ role: 'owner' });
    expectProblem(await h.call(outsider, 'POST', url, { datasetId: dataset.id }), 404, 'not-found', `Project ${project.id} does not exist.`);
    const theirs = await h.dataset(outsider);
    expectProblem(await h.call(s.member, 'POST', url, { datasetId: theirs.id }), 404, 'not-found', `Dataset ${theirs.id} does not exist.`);
    expect(ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`))).toMatchObject({ version: 2, itemCount: 2 });
  });

  it('numbers concurrent changes apart: each request its own version, none lost', async () => {
    const dataset = await h.dataset(s.member);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => h.add(s.member, dataset.id, [{ input: i }, { input: -i }])));
    expect(answers.map((a) => a.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`))).toMatchObject({ version: 12, itemCount: 24 });
    for (const answer of answers) expect(await h.items(s.viewer, dataset.id, answer.version)).toHaveLength(answer.version * 2);
  });

  it('property: after any sequence of adds, edits and deletes, every version reads as a replay of the changes up to it', async () => {
    type Op = { t: 'add'; n: number } | { t: 'edit'; pick: number; value: number } | { t: 'delete'; pick: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ t: fc.constant('add' as const), n: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ t: fc.constant('edit' as const), pick: fc.nat(), value: fc.integer() }),
      fc.record({ t: fc.constant('delete' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const dataset = await h.dataset(s.member);
        // The model: the items at each version, replayed from the operations.
        const versions: Map<string, unknown>[] = [new Map()];
        let counter = 0;
        for (const o of ops) {
          const current = new Map(versions[versions.length - 1]!);
          const ids = [...current.keys()].sort();
          if (o.t === 'add') {
            const added = await h.add(
              s.member,
              dataset.id,
              Array.from({ length: o.n }, () => ({ input: { n: counter++ } })),
            );
            for (const item of added.items as Json[]) current.set(item.id, item.input);
          } else if (ids.length === 0) continue;
          else if (o.t === 'edit') {
            const id = ids[o.pick % ids.length]!;
            ok(await h.call(s.member, 'PATCH', `/v1/datasets/${dataset.id}/items/${id}`, { input: { edited: o.value } }));
            current.set(id, { edited: o.value });
          } else {
            const id = ids[o.pick % ids.length]!;
            expect((await h.call(s.member, 'DELETE', `/v1/datasets/${dataset.id}/items/${id}`)).statusCode).toBe(204);
            current.delete(id);
          }
          versions.push(current);
        }
        const stored = ok(await h.call(s.viewer, 'GET', `/v1/datasets/${dataset.id}`));
        expect(stored).toMatchObject({ version: versions.length - 1, itemCount: versions[versions.length - 1]!.size });
        for (let v = 0; v < versions.length; v++) {
          const read = await h.items(s.viewer, dataset.id, v);
          expect(new Map(read.map((i) => [i.id, i.input])), `version ${v}`).toEqual(versions[v]);
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
