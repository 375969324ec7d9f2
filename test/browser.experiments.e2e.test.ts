/**
 * Experiments in a real browser (chromium + playwright-core, the machinery of test/browser.e2e.test.ts
 * on a server and a user of its own): two experiments of a dataset seeded through the API (runs,
 * results, scores), listed with their aggregates on the dataset's page, one read with its results and
 * links to its runs, and the two compared side by side: the items whose score went down or that failed
 * in the candidate alone highlighted as regressions, the others not, "Regressions only" keeping those, a
 * metric and a threshold choosing which drops count; the table fits a wide screen and, on a phone, its
 * sideways scroll is reached and moved with the keyboard.
 */
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { apiCall, browserSuite } from './helpers/browser.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-experiments');
const ACTION_MS = 8_000;
const at = (s: number) => new Date(Date.now() - 3_600_000 + s * 1000).toISOString();

const ESSAY = (topic: string) =>
  `${topic} has been the seat of government for centuries; its history, architecture and institutions shape the country's politics, culture and economy to this day, and its museums draw visitors from all over the world.`;
/**
 * What each experiment answered per item (an `Error:` answer is a failed result, with no score), whether the
 * answer was right (its `correct` score) and how good it read (`quality`).
 */
const PLAN = {
  baseline: { q1: ['Paris', true, 0.9], q2: ['Berlin', true, 0.8], q3: ['Madrid', false, 0.4], q4: [ESSAY('Rome'), true, 0.9] },
  candidate: {
    q1: ['Paris', true, 0.85],
    q2: ['Munich', false, 0.2],
    q3: ['Madrid, Spain', true, 0.9],
    q4: ['Error: RateLimitError: 429 Too Many Requests', null, null],
  },
} as const;
const failed = (answer: string) => answer.startsWith('Error: ');

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
          { id: 'q4', input: `Write a paragraph about the capital of Italy. ${ESSAY('It')}`, expectedOutput: ESSAY('Rome') },
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
        results: entries.map(([item, [answer]]) => ({
          itemId: item,
          runId: `${which}-${item}`,
          ...(failed(answer) ? { error: answer.slice('Error: '.length) } : { output: answer }),
          latencyMs: 1000,
          cost: 0.001,
        })),
      });
      await api('POST', `/v1/projects/${ui.projectId}/scores/batch`, {
        scores: entries.flatMap(([item, [, correct, quality]]) =>
          correct === null
            ? []
            : [
                { runId: `${which}-${item}`, name: 'correct', value: correct },
                { runId: `${which}-${item}`, name: 'quality', value: quality },
              ],
        ),
      });
      await api('PATCH', `/v1/experiments/${experiment.id}`, { status: 'completed' });
    }
  }, 120_000);

  step("lists a dataset's experiments with their aggregates, and opens one: its results with the item, output, scores and a link to each run", async () => {
    await ui.page.goto(`/datasets/${datasetId}`);
    const table = ui.page.getByRole('table', { name: 'Experiments of Capitals' });
    await expect
      .poll(async () => table.textContent(), { timeout: ACTION_MS })
      .toMatch(/capitals candidate.*completed.*4 \/ 41.*correct 0\.667 \(3\).*capitals baseline.*4 \/ 40.*correct 0\.75 \(4\)/s);
    await table.getByRole('link', { name: 'capitals baseline' }).click();
    await ui.page.waitForURL(`**/experiments/${ids.baseline}`);
    await ui.page.getByRole('heading', { level: 1, name: 'capitals baseline' }).waitFor();
    const results = ui.page.getByRole('table', { name: 'Results of capitals baseline' });
    await expect.poll(async () => results.textContent(), { timeout: ACTION_MS }).toMatch(/q3.*Capital of Spain\?.*Madrid.*Madrid.*correct ✗ false/s);
    await expect(results.getByRole('link', { name: 'Run of item q2' }).getAttribute('href')).resolves.toBe(`/projects/${ui.projectId}/runs/baseline-q2`);
  });

  step('compare two experiments: a lower score or a new failure is a regression; the metric and threshold choose which drops count', async () => {
    await ui.page.goto(`/datasets/${datasetId}`);
    const table = ui.page.getByRole('table', { name: 'Experiments of Capitals' });
    await table.getByRole('checkbox', { name: 'Compare capitals baseline' }).check();
    await table.getByRole('checkbox', { name: 'Compare capitals candidate' }).check();
    await ui.page.getByRole('button', { name: /^Compare 2 experiments$/ }).click();
    await ui.page.waitForURL(`**/experiments/compare?ids=${ids.baseline},${ids.candidate}`);
    const comparison = ui.page.getByRole('table', { name: 'Comparison by item' });
    const row = (item: string) => comparison.locator(`tr[data-item="${item}"]`);
    const flagged = async () =>
      (await comparison.locator('tbody tr.sl-exp-regression').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-item')))).sort();
    const status = ui.page.getByRole('status').filter({ hasText: 'regression' });
    await expect
      .poll(async () => row('q2').textContent(), { timeout: ACTION_MS })
      .toMatch(/Capital of Germany\?.*Berlin.*Berlin.*correct ✓ true.*Munich.*correct ✗ false.*correct\s*−1\s*\(regression\)/s);
    // q2 went from right to wrong, q1 read a little worse (quality −0.05), q4 failed in the candidate alone (no score to compare).
    await expect.poll(flagged, { timeout: ACTION_MS }).toEqual(['q1', 'q2', 'q4']);
    await expect(row('q4').textContent()).resolves.toMatch(
      /New error.*RateLimitError: 429 Too Many Requests.*failed where the baseline did not \(regression\)/s,
    );
    await expect(row('q4').getByText('Regression', { exact: true }).isVisible()).resolves.toBe(true);
    const background = await row('q4')
      .locator('td')
      .nth(1)
      .evaluate((td) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(td).backgroundColor);
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    await expect(row('q3').getAttribute('class')).resolves.toBeNull();
    await expect(row('q3').getByText('Regression', { exact: true }).count()).resolves.toBe(0);
    await expect(row('q3').textContent()).resolves.toMatch(/correct\s*\+1/);
    await expect(status.textContent()).resolves.toBe('3 regressions in 4 items loaded');

    await ui.page.getByRole('checkbox', { name: 'Regressions only' }).check();
    await expect.poll(async () => comparison.locator('tbody tr').count(), { timeout: ACTION_MS }).toBe(3);
    await ui.page.getByRole('checkbox', { name: 'Regressions only' }).uncheck();
    await expect.poll(async () => comparison.locator('tbody tr').count(), { timeout: ACTION_MS }).toBe(4);

    // A drop of quality by more than 0.1: q1's 0.05 no longer counts; the new failure still does. Kept in the URL.
    await ui.page.getByLabel('Drop more than').fill('0.1');
    await expect.poll(flagged, { timeout: ACTION_MS }).toEqual(['q2', 'q4']);
    await expect.poll(() => new URL(ui.page.url()).searchParams.get('threshold'), { timeout: ACTION_MS }).toBe('0.1');
    // Only correctness counts: quality's drops do not, whatever their size.
    await ui.page.getByLabel('Drop more than').fill('0');
    await ui.page.getByLabel('Regression metric').selectOption('correct');
    await expect.poll(flagged, { timeout: ACTION_MS }).toEqual(['q2', 'q4']);
    await expect(row('q2').textContent()).resolves.toMatch(/quality\s*−0\.6(?!.*quality.*\(regression\))/s);
    await ui.page.reload();
    await expect.poll(flagged, { timeout: ACTION_MS }).toEqual(['q2', 'q4']);
    await expect(ui.page.getByLabel('Regression metric').inputValue()).resolves.toBe('correct');
  });

  step('the comparison fits a wide screen, and on a phone its sideways scroll is reached and moved with the keyboard', async () => {
    await ui.page.setViewportSize({ width: 1440, height: 900 });
    await ui.page.goto(`/experiments/compare?ids=${ids.baseline},${ids.candidate}`);
    const comparison = ui.page.getByRole('table', { name: 'Comparison by item' });
    await comparison.locator('tr[data-item="q4"]').waitFor();
    // Everything in view: the box does not scroll, the last column (the differences) ends inside the window.
    const wrap = comparison.locator('xpath=..');
    const fits = await wrap.evaluate((box) => ({ scroll: box.scrollWidth, client: box.clientWidth }));
    expect(fits.scroll, JSON.stringify(fits)).toBeLessThanOrEqual(fits.client);
    await expect(wrap.getAttribute('tabindex')).resolves.toBeNull();
    const lastCell = await comparison.locator('tr[data-item="q4"] td').last().boundingBox();
    expect(lastCell!.x + lastCell!.width).toBeLessThanOrEqual(1440);

    await ui.page.setViewportSize({ width: 390, height: 844 });
    const region = ui.page.getByRole('region', { name: 'Comparison by item (scrolls sideways)' });
    await region.waitFor({ timeout: ACTION_MS });
    await ui.page.getByRole('checkbox', { name: 'Regressions only' }).focus();
    await ui.page.keyboard.press('Tab');
    await expect(region.evaluate((box) => box === box.ownerDocument.activeElement)).resolves.toBe(true);
    await ui.page.keyboard.press('ArrowRight');
    await ui.page.keyboard.press('ArrowRight');
    await expect.poll(() => region.evaluate((box) => box.scrollLeft), { timeout: ACTION_MS }).toBeGreaterThan(0);
    await ui.page.setViewportSize({ width: 1440, height: 900 });
  });
});
