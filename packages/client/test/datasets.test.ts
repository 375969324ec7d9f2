import { expect, it } from 'vitest';
import { Sightline } from '../src/index.js';
import { describeSdk, expectProblem } from './client.test-support.js';

describeSdk((sdk) => {
  it('round-trips datasets and their versions: create, add, edit, delete, read any version, update, delete the dataset', async () => {
    const dataset = await sdk.client.datasets.create({ name: 'Refund questions', metadata: { owner: 'qa' } });
    expect(dataset).toMatchObject({ name: 'Refund questions', description: '', metadata: { owner: 'qa' }, version: 0, itemCount: 0 });
    const added = await sdk.client.datasets.items.add(dataset.id, [{ id: 'q1', input: { question: 'Refund?' }, expectedOutput: 'Yes' }, { input: 'Hello' }]);
    expect(added.version).toBe(1);
    expect(added.items.map((i) => i.id)).toEqual(['q1', expect.stringMatching(/^dsi_/)]);
    const edited = await sdk.client.datasets.items.update(dataset.id, 'q1', { expectedOutput: 'Yes, within 30 days' });
    expect(edited).toMatchObject({ id: 'q1', version: 2, expectedOutput: 'Yes, within 30 days' });
    await sdk.client.datasets.items.delete(dataset.id, added.items[1]!.id);

    const at = async (version?: number) =>
      (await sdk.client.datasets.items.list(dataset.id, version === undefined ? {} : { version }, { limit: 1 }).toArray()).map((i) => [i.id, i.expectedOutput]);
    // Added together: by id, descending.
    expect(await at(1)).toEqual([
      ['q1', 'Yes'],
      [added.items[1]!.id, null],
    ]);
    expect(await at(2)).toEqual([
      ['q1', 'Yes, within 30 days'],
      [added.items[1]!.id, null],
    ]);
    expect(await at()).toEqual([['q1', 'Yes, within 30 days']]);
    expect(await sdk.client.datasets.items.get(dataset.id, 'q1', { version: 1 })).toMatchObject({ expectedOutput: 'Yes', version: 1 });
    await expectProblem(sdk.client.datasets.items.list(dataset.id, { version: 9 }).toArray(), 400, 'validation');
    await expectProblem(sdk.client.datasets.items.add(dataset.id, [{ id: 'q1', input: 1 }]), 409, 'conflict');

    expect(await sdk.client.datasets.get(dataset.id)).toMatchObject({ version: 3, itemCount: 1 });
    expect(await sdk.client.datasets.update(dataset.id, { description: 'From support' })).toMatchObject({ description: 'From support', version: 3 });
    expect((await sdk.client.datasets.list({ name: 'refund' }).toArray()).map((d) => d.id)).toEqual([dataset.id]);
    await sdk.client.datasets.delete(dataset.id);
    await expectProblem(sdk.client.datasets.get(dataset.id), 404, 'not-found');
  });

  it('adds a run to a dataset with its inputs and outputs; a viewer reads datasets but may not write them (403)', async () => {
    const project = await sdk.client.projects.create({ name: 'datasets-sdk' });
    const run = await sdk.client.runs.create(project.id, {
      name: 'answer',
      kind: 'llm',
      startTime: '2026-11-02T10:00:00.000Z',
      inputs: { question: 'Refund?' },
      outputs: { answer: 'Yes' },
    });
    const dataset = await sdk.client.datasets.create({ name: 'From runs' });
    const item = await sdk.client.runs.addToDataset(project.id, run.id, { datasetId: dataset.id });
    expect(item).toMatchObject({
      input: { question: 'Refund?' },
      expectedOutput: { answer: 'Yes' },
      sourceRunId: run.id,
      sourceProjectId: project.id,
      version: 1,
    });

    const viewer = await sdk.server.make.caller({ role: 'viewer', organizationId: sdk.owner.organizationId });
    const client = new Sightline(sdk.options({ token: viewer.token }));
    expect((await client.datasets.items.list(dataset.id).toArray()).map((i) => i.id)).toEqual([item.id]);
    await expectProblem(client.datasets.items.add(dataset.id, [{ input: 1 }]), 403, 'forbidden');
    await expectProblem(client.runs.addToDataset(project.id, run.id, { datasetId: dataset.id }), 403, 'forbidden');
  });
});
