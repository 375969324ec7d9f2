/**
 * Experiments in a real browser (chromium + playwright-core, the machinery of test/browser.e2e.test.ts
 * on a server and a user of its own): two experiments of a dataset seeded through the API (runs,
 * results, scores), listed with their aggregates on the dataset's page, one read with its results and
 * links to its runs, and the two compared side by side: the item whose score went down highlighted as
 * a regression, the others not, and "Regressions only" keeping it alone.
 */
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { apiCall, browserSuite } from './helpers/browser.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-experiments');
const ACTION_MS = 8_000;
const at = (s: number) => new Date(Date.now() - 3_600_000 + s * 1000).toISOString();

/** What each experiment answered per item, and whether the answer was right (its `correct` score). */
const PLAN = {
  baseline: { q1: ['Paris', true], q2: ['Berlin', true], q3: ['Madrid', false] },
  candidate: { q1: ['Paris', true], q2: ['Munich', false], q3: ['Madrid, Spain', true] },
} as const;

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 30_000, login: 'e2e-experiments@example.test', project: 'experiments-project' };

browserSuite('experiments in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  let datasetId = '';
  const ids: Record<keyof typeof PLAN, string> = { baseline: '', candidate: '' };
  const { step } = ui;
  const api = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await apiCall(ui.dashboard.server.url, ui.token, method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  };

  beforeAll(async () => {
    datasetId = (await api('POST', '/v1/datasets', { name: 'Capitals' }, 201)).id;
    await api(
      'POST',
      `/v1/datasets/${datasetId}/items`,
      {
        items: [
          { id: 'q1', input: 'Capital of France?', expectedOutput: 'Paris' },
          { id: 'q2', input: 'Capital of Germany?', expectedOutput: 'Berlin' },
          { id: 'q3', input: 'Capital of Spain?', expectedOutput: 'Madrid' },
        ],
      },
      201,
    );
    for (const [which, answers] of Object.entries(PLAN) as [keyof typeof PLAN, (typeof PLAN)[keyof typeof PLAN]][]) {
      const experiment = await api(
        'POST',
        '/v1/experiments',
        { name: `capitals ${which}`, datasetId, projectId: ui.projectId, metadata: { model: which } },
        201,
      );
      ids[which] = experiment.id;
      const entries = Object.entries(answers);
      await api('POST', `/v1/projects/${ui.projectId}/runs/batch`, {
        runs: entries.map(([item, [answer]], i) => ({
          id: `${which}-${item}`,
          name: `experiment ${which}`,
          kind: 'chain',
          status: 'succeeded',
          startTime: at(i),
          endTime: at(i + 1),
          inputs: { question: item },
          outputs: answer,
          metadata: { experimentId: experiment.id, datasetItemId: item },
        })),
      });
      await api('POST', `/v1/experiments/${experiment.id}/results`, {
        results: entries.map(([item, [answer]]) => ({ itemId: item, runId: `${which}-${item}`, output: answer, latencyMs: 1000, cost: 0.001 })),
      });
      await api('POST', `/v1/projects/${ui.projectId}/scores/batch`, {
        scores: entries.map(([item, [, correct]]) => ({ runId: `${which}-${item}`, name: 'correct', value: correct })),
      });
      await api('PATCH', `/v1/experiments/${experiment.id}`, { status: 'completed' });
    }
  }, 120_000);

  step("lists a dataset's experiments with their aggregates, and opens one: its results with the item, output, scores and a link to each run", async () => {
    await ui.page.goto(`/datasets/${datasetId}`);
    const table = ui.page.getByRole('table', { name: 'Experiments of Capitals' });
    await expect
      .poll(async () => table.textContent(), { timeout: ACTION_MS })
      .toMatch(/capitals candidate.*completed.*3 \/ 3.*correct 0\.667 \(3\).*capitals baseline/s);
    await table.getByRole('link', { name: 'capitals baseline' }).click();
    await ui.page.waitForURL(`**/experiments/${ids.baseline}`);
    await ui.page.getByRole('heading', { level: 1, name: 'capitals baseline' }).waitFor();
    const results = ui.page.getByRole('table', { name: 'Results of capitals baseline' });
    await expect.poll(async () => results.textContent(), { timeout: ACTION_MS }).toMatch(/q3.*Capital of Spain\?.*Madrid.*Madrid.*correct ✗ false/s);
    await expect(results.getByRole('link', { name: 'Run of item q2' }).getAttribute('href')).resolves.toBe(`/projects/${ui.projectId}/runs/baseline-q2`);
  });

  step('compare two experiments', async () => {
    await ui.page.goto(`/datasets/${datasetId}`);
    const table = ui.page.getByRole('table', { name: 'Experiments of Capitals' });
    await table.getByRole('checkbox', { name: 'Compare capitals baseline' }).check();
    await table.getByRole('checkbox', { name: 'Compare capitals candidate' }).check();
    await ui.page.getByRole('button', { name: /^Compare 2 experiments$/ }).click();
    await ui.page.waitForURL(`**/experiments/compare?ids=${ids.baseline},${ids.candidate}`);
    const comparison = ui.page.getByRole('table', { name: 'Comparison by item' });
    const row = (item: string) => comparison.locator(`tr[data-item="${item}"]`);
    await expect
      .poll(async () => row('q2').textContent(), { timeout: ACTION_MS })
      .toMatch(/Capital of Germany\?.*Berlin.*Berlin.*correct ✓ true.*Munich.*correct ✗ false.*correct\s*−1\s*\(regression\)/s);
    // q2 went from right to wrong: a regression, highlighted; q3 improved and q1 held: not.
    await expect(row('q2').getAttribute('class')).resolves.toBe('sl-exp-regression');
    await expect(row('q2').getByText('Regression', { exact: true }).isVisible()).resolves.toBe(true);
    const background = await row('q2')
      .locator('td')
      .nth(1)
      .evaluate((td) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(td).backgroundColor);
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    for (const item of ['q1', 'q3']) {
      await expect(row(item).getAttribute('class')).resolves.toBeNull();
      await expect(row(item).getByText('Regression', { exact: true }).count()).resolves.toBe(0);
    }
    await expect(row('q3').textContent()).resolves.toMatch(/correct\s*\+1/);
    await expect(ui.page.getByRole('status').filter({ hasText: 'regression' }).textContent()).resolves.toBe('1 regression in 3 items loaded');

    await ui.page.getByRole('checkbox', { name: 'Regressions only' }).check();
    await expect.poll(async () => comparison.locator('tbody tr').count(), { timeout: ACTION_MS }).toBe(1);
    await expect(comparison.locator('tbody tr').getAttribute('data-item')).resolves.toBe('q2');
    await ui.page.getByRole('checkbox', { name: 'Regressions only' }).uncheck();
    await expect.poll(async () => comparison.locator('tbody tr').count(), { timeout: ACTION_MS }).toBe(3);
  });
});
