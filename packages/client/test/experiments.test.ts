import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { derivedId, type DatasetItem, type Evaluator, type Sightline } from '../src/index.js';
import { describeSdk, expectProblem, sleep } from './client.test-support.js';

/** The questions of the suites' datasets: `q-<i>` asks for `word-<i>` in capitals. */
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `q-${i}`, input: { word: `word-${i}` }, expectedOutput: { answer: `WORD-${i}` } }));

const exact: Evaluator<{ answer: string }> = ({ output, expected }) => ({ name: 'exact', value: output.answer === (expected as { answer: string }).answer });
const length: Evaluator<{ answer: string }> = ({ output }) => [{ name: 'length', value: output.answer.length, comment: 'characters' }];

/** Everything stored for an experiment, read back: its results, its runs (by their metadata) and the scores on them. */
async function stored(client: Sightline, projectId: string, experimentId: string) {
  const results = await client.experiments.results.list(experimentId, { limit: 100 }).toArray();
  const runs = await client.runs.list(projectId, { 'metadata.experimentId': experimentId }, { limit: 100 }).toArray();
  const scores = (await client.scores.list(projectId, {}, { limit: 100 }).toArray()).filter((s) => s.metadata.experimentId === experimentId);
  return { results, runs, scores };
}

describeSdk((sdk) => {
  let projectId: string;
  beforeAll(async () => {
    projectId = (await sdk.client.projects.create({ name: 'experiments-sdk' })).id;
  });

  it('runs an experiment end to end: traced runs in the project, results, scores by the evaluators, progress, aggregates; compared with a second one', async () => {
    const dataset = await sdk.client.datasets.create({ name: 'Capitals' });
    await sdk.client.datasets.items.add(dataset.id, items(6));
    const progress: { done: number; total: number; failed: number }[] = [];
    const summary = await sdk.client.runExperiment({
      dataset: 'capitals', // by name, whatever the case
      name: 'upper v1',
      projectId,
      metadata: { prompt: 'upper' },
      task: async (input, item, run) => {
        if (item.id === 'q-5') throw new Error('no answer for q-5');
        run.setUsage({ promptTokens: 10, completionTokens: 2 });
        return { answer: (input as { word: string }).word.toUpperCase() };
      },
      evaluators: [exact, length],
      concurrency: 3,
      onProgress: (p) => progress.push(p),
    });
    expect(summary).toMatchObject({ total: 6, done: 6, failed: 1, skipped: 0, ran: 6, reused: 0, evaluatorErrors: [] });
    expect(summary.experiment).toMatchObject({
      name: 'upper v1',
      datasetId: dataset.id,
      datasetVersion: 1,
      projectId,
      metadata: { prompt: 'upper' },
      status: 'completed',
      counts: { items: 6, done: 6, failed: 1 },
      aggregates: { tokens: 60, scores: { exact: { count: 5, mean: 1 }, length: { count: 5, mean: 6 } } },
    });
    expect(progress.map((p) => p.done)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(progress.at(-1)).toEqual({ done: 6, total: 6, failed: 1 });

    const { results, runs, scores } = await stored(sdk.client, projectId, summary.experiment.id);
    expect(results.map((r) => r.itemId).sort()).toEqual(items(6).map((i) => i.id));
    for (const result of results) {
      const run = runs.find((r) => r.id === result.runId)!;
      expect(run.id).toBe(await derivedId('exprun', summary.experiment.id, result.itemId));
      expect(run).toMatchObject({ traceId: run.id, parentRunId: null, metadata: { experimentId: summary.experiment.id, datasetItemId: result.itemId } });
      expect(run.inputs).toEqual(result.item!.input);
      expect(result.latencyMs).toBe(run.latencyMs);
      if (result.itemId === 'q-5') {
        expect(result).toMatchObject({ output: null, error: 'Error: no answer for q-5', scores: [] });
        expect(run.status).toBe('failed');
      } else {
        expect(result.output).toEqual({ answer: result.itemId.replace('q-', 'WORD-') });
        expect(run.outputs).toEqual(result.output);
        expect(result.usage).toEqual({ promptTokens: 10, completionTokens: 2, totalTokens: 12 });
        expect(result.scores.map((s) => [s.name, s.value]).sort()).toEqual([
          ['exact', true],
          ['length', 6],
        ]);
      }
    }
    expect(runs).toHaveLength(6);
    expect(scores).toHaveLength(10);

    // A second experiment that gets q-1 wrong: the comparison shows the regression on that item only.
    const second = await sdk.client.runExperiment({
      dataset: dataset.id,
      name: 'lower v2',
      projectId,
      task: (input, item) => ({ answer: item.id === 'q-1' ? 'oops' : (input as { word: string }).word.toUpperCase() }),
      evaluators: [exact],
    });
    const rows = await sdk.client.experiments.compare([summary.experiment.id, second.experiment.id], { limit: 4 }).toArray();
    expect(rows.map((r) => r.itemId).sort()).toEqual(items(6).map((i) => i.id));
    expect(rows.filter((r) => r.regression).map((r) => r.itemId)).toEqual(['q-1']);
    const q1 = rows.find((r) => r.itemId === 'q-1')!;
    expect(q1.differences).toEqual([
      { name: 'exact', experimentId: second.experiment.id, difference: -1, regression: true },
      { name: 'length', experimentId: second.experiment.id, difference: null, regression: false },
    ]);
    expect(q1.results.map((c) => c.output)).toEqual([{ answer: 'WORD-1' }, { answer: 'oops' }]);
    // What counts: only `length`'s drops (none), or `exact`'s beyond 1 (none can be).
    for (const rule of [{ metric: 'length' }, { metric: 'exact', threshold: 1 }]) {
      const judged = await sdk.client.experiments.compare([summary.experiment.id, second.experiment.id], rule).toArray();
      expect(judged.filter((r) => r.regression)).toEqual([]);
    }
    await expectProblem(sdk.client.experiments.compare([summary.experiment.id, second.experiment.id], { threshold: -1 }).toArray(), 400, 'validation');
    await expectProblem(sdk.client.experiments.compare([summary.experiment.id]).toArray(), 400, 'validation');
  });

  it('resumes by name: items with a result are skipped, and a run stored before a crash is reused (its task not run again)', async () => {
    const dataset = await sdk.client.datasets.create({ name: 'Resume in process' });
    await sdk.client.datasets.items.add(dataset.id, items(4));
    const experiment = await sdk.client.experiments.create({ name: 'resumed', datasetId: dataset.id, projectId });
    // A crash after item q-0's result, and one after q-1's run (before its scores and result).
    const done = await derivedId('exprun', experiment.id, 'q-0');
    await sdk.client.runs.create(projectId, {
      id: done,
      name: 'experiment resumed',
      kind: 'chain',
      startTime: new Date().toISOString(),
      outputs: { answer: 'WORD-0' },
    });
    await sdk.client.experiments.results.record(experiment.id, [{ itemId: 'q-0', runId: done, output: { answer: 'WORD-0' }, latencyMs: 3 }]);
    const crashed = await derivedId('exprun', experiment.id, 'q-1');
    await sdk.client.runs.create(projectId, {
      id: crashed,
      name: 'experiment resumed',
      kind: 'chain',
      status: 'succeeded',
      startTime: '2026-11-26T10:00:00.000Z',
      endTime: '2026-11-26T10:00:00.250Z',
      inputs: { word: 'word-1' },
      outputs: { answer: 'WORD-1' },
      metadata: { experimentId: experiment.id, datasetItemId: 'q-1' },
    });

    const tasked: string[] = [];
    const summary = await sdk.client.runExperiment({
      dataset: dataset.id,
      name: 'resumed',
      projectId,
      task: (input: unknown, item: DatasetItem) => {
        tasked.push(item.id);
        return { answer: (input as { word: string }).word.toUpperCase() };
      },
      evaluators: [exact],
    });
    expect(tasked.sort()).toEqual(['q-2', 'q-3']);
    expect(summary).toMatchObject({ total: 4, done: 4, skipped: 1, ran: 2, reused: 1 });
    const { results } = await stored(sdk.client, projectId, experiment.id);
    expect(results.find((r) => r.itemId === 'q-1')).toMatchObject({ runId: crashed, output: { answer: 'WORD-1' }, latencyMs: 250 });
    // Once more: nothing left to do, nothing written twice.
    const again = await sdk.client.runExperiment({ dataset: dataset.id, name: 'resumed', projectId, task: () => ({ answer: 'never' }), evaluators: [exact] });
    expect(again).toMatchObject({ skipped: 4, ran: 0, reused: 0, done: 4 });
    await expect(sdk.client.runExperiment({ dataset: dataset.id, name: 'resumed', projectId: 'prj_other', task: () => 1 })).rejects.toThrow(
      /stores its runs in project/,
    );
  });

  describe_killed(sdk, () => projectId);
});

/**
 * The crash test: `runExperiment` in a child process (the SDK as built for publishing, against the
 * server), killed with SIGKILL after some items are reported, then run again to the end.
 */
function describe_killed(sdk: Parameters<Parameters<typeof describeSdk>[0]>[0], project: () => string): void {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-experiment-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'run.mjs');
  beforeAll(async () => {
    // Built in a child process waited for without blocking: the server shares this thread, and a build
    // that held its event loop for over a second got the next requests shed as "falling behind" (503).
    await promisify(execFile)(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url)), '--out', join(dir, 'sdk')]);
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(
      script,
      `import { appendFileSync } from 'node:fs';
import { Sightline } from './sdk/index.js';
const env = process.env;
const client = new Sightline({ baseUrl: env.URL, token: env.TOKEN });
const summary = await client.runExperiment({
  dataset: env.DATASET,
  name: env.NAME,
  projectId: env.PROJECT,
  concurrency: 2,
  task: async (input, item) => {
    appendFileSync(env.LOG, item.id + '\\n');
    await new Promise((resolve) => setTimeout(resolve, 40));
    return { answer: input.word.toUpperCase() };
  },
  evaluators: [
    ({ output, expected }) => ({ name: 'exact', value: output.answer === expected.answer }),
    ({ output }) => ({ name: 'length', value: output.answer.length }),
  ],
  onProgress: (p) => console.log('progress ' + JSON.stringify(p)),
});
console.log('summary ' + JSON.stringify({ ...summary, experiment: summary.experiment.id }));
`,
    );
  }, 60_000);

  /** Runs the script; with `killAfter`, kills it (SIGKILL) once that many items are reported done. */
  function runScript(env: Record<string, string>, killAfter?: number): Promise<{ lines: string[]; signal: NodeJS.Signals | null; code: number | null }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      const lines: string[] = [];
      let stderr = '';
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        for (const line of parts) {
          lines.push(line);
          if (killAfter !== undefined && line.startsWith('progress ') && JSON.parse(line.slice(9)).done >= killAfter) child.kill('SIGKILL');
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        if (signal === null && code !== 0) reject(new Error(`the script failed (${code}): ${stderr}`));
        else resolve({ lines, signal, code });
      });
    });
  }

  it('is resumed after being killed midway: every item ends with exactly one result, one run and one score per evaluator, and the second run does only what was left', async () => {
    const projectId = project();
    const dataset = await sdk.client.datasets.create({ name: 'Killed midway' });
    await sdk.client.datasets.items.add(dataset.id, items(12));
    const env = { URL: sdk.server.url, TOKEN: sdk.owner.token, DATASET: dataset.id, NAME: 'killed', PROJECT: projectId };
    const firstLog = join(dir, 'first.log');
    const secondLog = join(dir, 'second.log');
    writeFileSync(firstLog, '');
    writeFileSync(secondLog, '');

    const first = await runScript({ ...env, LOG: firstLog }, 4);
    expect(first.signal).toBe('SIGKILL');
    expect(first.lines.some((l) => l.startsWith('summary '))).toBe(false);
    // A request the process sent just before it died may still be finishing on the server.
    await sleep(500);
    const [experiment] = await sdk.client.experiments.list({ datasetId: dataset.id, name: 'killed' }).toArray();
    expect(experiment!.status).toBe('running');
    const atKill = await stored(sdk.client, projectId, experiment!.id);
    const doneAtKill = new Set(atKill.results.map((r) => r.itemId));
    expect(doneAtKill.size).toBeGreaterThanOrEqual(4);
    expect(doneAtKill.size).toBeLessThan(12);
    const runsAtKill = new Set(atKill.runs.map((r) => r.metadata.datasetItemId as string));

    const second = await runScript({ ...env, LOG: secondLog });
    const summaryLine = second.lines.find((l) => l.startsWith('summary '));
    expect(summaryLine, second.lines.join('\n')).toBeDefined();
    const summary = JSON.parse(summaryLine!.slice(8));
    const secondTasks = readFileSync(secondLog, 'utf8').split('\n').filter(Boolean);
    // Only the items left: none that had a result is done again; a run stored before the kill is reused, not run again.
    expect(summary).toMatchObject({ experiment: experiment!.id, total: 12, done: 12, failed: 0, skipped: doneAtKill.size });
    expect(summary.ran + summary.reused).toBe(12 - doneAtKill.size);
    expect(secondTasks).toHaveLength(summary.ran);
    expect(new Set(secondTasks).size).toBe(secondTasks.length);
    for (const id of secondTasks) {
      expect(doneAtKill.has(id), id).toBe(false);
      expect(runsAtKill.has(id), id).toBe(false);
    }
    const firstTasks = new Set(readFileSync(firstLog, 'utf8').split('\n').filter(Boolean));
    for (const id of items(12).map((i) => i.id)) expect(firstTasks.has(id) || secondTasks.includes(id), id).toBe(true);

    const after = await stored(sdk.client, projectId, experiment!.id);
    const count = (values: string[]) => values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>());
    const perItem = (values: string[]) => items(12).map((i) => [i.id, count(values).get(i.id) ?? 0]);
    const one = items(12).map((i) => [i.id, 1]);
    expect(perItem(after.results.map((r) => r.itemId))).toEqual(one);
    expect(perItem(after.runs.map((r) => r.metadata.datasetItemId as string))).toEqual(one);
    for (const name of ['exact', 'length'])
      expect(perItem(after.scores.filter((s) => s.name === name).map((s) => s.metadata.datasetItemId as string))).toEqual(one);
    const final = await sdk.client.experiments.get(experiment!.id);
    expect(final).toMatchObject({
      status: 'completed',
      counts: { items: 12, done: 12, failed: 0 },
      aggregates: { scores: { exact: { count: 12, mean: 1 }, length: { count: 12 } } },
    });
  }, 120_000);
}
