/**
 * Monitors over scores in a real browser (chromium + playwright-core, the machinery of
 * test/browser.e2e.test.ts on a server and a user of its own): the monitor form offers Score mean and
 * Score share, names the scores (offered from the score configs), asks a share for its label, and the
 * live preview shows the value the monitor will have (the score metrics of the name) and the state it
 * gives; the monitor is stored with its score. Skipped without chromium locally, a failure in CI.
 */
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { apiCall, browserSuite, formScope, labelled } from './helpers/browser.js';

const ARTIFACTS = join(new URL('..', import.meta.url).pathname, 'test-artifacts', 'screenshots-monitors-scores');
const ACTION_MS = 8_000;

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 30_000, login: 'e2e-monitor-scores@example.test', project: 'monitor-scores' };

browserSuite('monitors over scores in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  const { step } = ui;
  const api = async <T>(method: string, path: string, body?: unknown) => {
    const response = await apiCall<T>(ui.dashboard.server.url, ui.token, method, path, body);
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
    return response.body;
  };
  /** The new-monitor form, filled with a name, a score metric, its score name and a threshold. */
  const newScoreMonitor = async (name: string, metric: string, score: string, op: string, threshold: string) => {
    await ui.page.goto(`/projects/${ui.projectId}/monitors`);
    await ui.page.getByRole('button', { name: 'New monitor' }).first().click();
    const form = await formScope(ui.page);
    await labelled(form, 'Name').fill(name);
    await labelled(form, 'Metric').selectOption(metric);
    await form
      .getByRole('region', { name: /Live preview/ })
      .getByText('Name the score to preview its metric.')
      .waitFor();
    await labelled(form, 'Score name').fill(score);
    await labelled(form, 'Operator').selectOption(op);
    await labelled(form, 'Threshold').fill(threshold);
    return form;
  };
  const monitors = async () =>
    (await api<{ items: { name: string; metric: string; score: unknown; threshold: unknown }[] }>('GET', `/v1/projects/${ui.projectId}/monitors`)).items;

  beforeAll(async () => {
    const ran = await api<{ results: { status: string }[] }>('POST', `/v1/projects/${ui.projectId}/runs/batch`, {
      runs: [{ id: 'answer', name: 'chat', kind: 'llm', startTime: new Date(Date.now() - 60_000).toISOString() }],
    });
    expect(
      ran.results.map((r) => r.status),
      JSON.stringify(ran),
    ).toEqual(['created']);
    await api('POST', '/v1/score-configs', { name: 'thumbs_down', dataType: 'boolean' });
    const scored = await api<{ results: { status: string }[] }>('POST', `/v1/projects/${ui.projectId}/scores/batch`, {
      scores: [
        { runId: 'answer', name: 'helpfulness', value: 0.5 },
        { runId: 'answer', name: 'helpfulness', value: 0.6 },
        { runId: 'answer', name: 'thumbs_down', value: true },
        { runId: 'answer', name: 'thumbs_down', value: false },
        { runId: 'answer', name: 'thumbs_down', value: false },
        { runId: 'answer', name: 'thumbs_down', value: false },
      ],
    });
    expect(
      scored.results.map((r) => r.status),
      JSON.stringify(scored),
    ).toEqual(Array(6).fill('created'));
  }, 120_000);

  step('a mean below 0.7: the preview shows the mean of the name and that it would alert; the monitor is stored with its score', async () => {
    const form = await newScoreMonitor('helpfulness', 'score_mean', 'helpfulness', '<', '0.7');
    const kpis = form.getByRole('region', { name: /Live preview/ }).locator('.kpis');
    await expect.poll(() => kpis.textContent(), { timeout: ACTION_MS }).toContain('Score mean0.55');
    expect(await kpis.textContent()).toContain('Scores matched2');
    expect(await kpis.textContent()).toContain('alerting');
    // The runs filter does not apply to a score metric; the scores' own filter does.
    expect(await form.getByRole('group', { name: 'Runs filter' }).isHidden()).toBe(true);
    await labelled(form, 'Source').selectOption('api');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    await ui.page.getByRole('button', { name: 'Open monitor' }).click();
    await ui.page.waitForURL(/\/monitors\/mon_/);
    await ui.page.getByText('of the scores helpfulness').waitFor();
    expect((await monitors()).find((m) => m.name === 'helpfulness')).toMatchObject({
      metric: 'score_mean',
      score: { name: 'helpfulness' },
      filter: { source: 'api' },
      threshold: { op: '<', value: 0.7 },
    });
  });

  step('a share above 10 %: the label is asked for (offered from the config), typed in percent, and the preview shows the share', async () => {
    const form = await newScoreMonitor('thumbs down', 'score_share', 'thumbs_down', '>', '10');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    await form.getByText('The share needs a label').waitFor();
    // The config is boolean: its labels are offered.
    const options = await form
      .locator(`datalist#${(await labelled(form, 'Label').getAttribute('list'))!.replace(/:/g, '\\:')} option`)
      .evaluateAll((o) => o.map((e) => e.getAttribute('value')));
    expect(options).toEqual(['true', 'false']);
    await labelled(form, 'Label').fill('true');
    const kpis = form.getByRole('region', { name: /Live preview/ }).locator('.kpis');
    await expect.poll(() => kpis.textContent(), { timeout: ACTION_MS }).toContain('Score share25 %');
    expect(await kpis.textContent()).toContain('Scores matched4');
    expect(await kpis.textContent()).toContain('alerting');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    await ui.page.getByRole('button', { name: 'Open monitor' }).click();
    await ui.page.waitForURL(/\/monitors\/mon_/);
    expect((await monitors()).find((m) => m.name === 'thumbs down')).toMatchObject({
      metric: 'score_share',
      score: { name: 'thumbs_down', label: 'true' },
      threshold: { op: '>', value: 0.1 },
    });
  });
});
