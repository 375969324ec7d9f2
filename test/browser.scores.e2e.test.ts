/**
 * Scores in a real browser (chromium + playwright-core, the machinery of test/browser.e2e.test.ts on a
 * server and a user of its own): an admin defines score configs in Settings; a model call is scored in
 * place beside the trace's waterfall, its value typed by the config (a list of categories, a number
 * within a range); the score stays after a reload and its author deletes it; a session is scored too;
 * the runs list is filtered by a score, its rows showing their scores as chips, and one score as a column.
 */
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { apiCall, browserSuite, labelled } from './helpers/browser.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-scores');
const ACTION_MS = 8_000;
const at = (s: number) => new Date(Date.now() - 3_600_000 + s * 1000).toISOString();

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 30_000, login: 'e2e-scores@example.test', tokenName: 'e2e-scores', project: 'scores-project' };

browserSuite('scoring runs, traces and sessions in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  const { step } = ui;

  beforeAll(async () => {
    const batch = await apiCall(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${ui.projectId}/runs/batch`, {
      runs: [
        { id: 'turn', name: 'support-agent', kind: 'agent', status: 'succeeded', startTime: at(0), endTime: at(3), sessionId: 'conv-9', inputs: 'Hi' },
        {
          id: 'turn-llm',
          parentRunId: 'turn',
          name: 'chat gpt-4o',
          kind: 'llm',
          status: 'succeeded',
          startTime: at(1),
          endTime: at(2),
          inputs: { messages: [{ role: 'user', content: 'Where is my refund?' }] },
          outputs: { content: 'It was issued on Monday.' },
        },
      ],
    });
    expect(batch.status).toBe(200);
  }, 120_000);

  step('defines score configs in Settings: a range and categories', async () => {
    await ui.page.goto('/settings#score-configs');
    const create = async (fill: () => Promise<void>) => {
      await ui.page.getByRole('button', { name: 'New score config' }).click();
      const form = ui.page.getByRole('form', { name: 'New score config' });
      await form.waitFor();
      await fill();
      await form.getByRole('button', { name: 'Create config' }).click();
      await form.waitFor({ state: 'detached' });
    };
    await create(async () => {
      const form = ui.page.getByRole('form', { name: 'New score config' });
      await labelled(form, 'Name').fill('helpfulness');
      await labelled(form, 'Minimum').fill('0');
      await labelled(form, 'Maximum').fill('1');
    });
    await create(async () => {
      const form = ui.page.getByRole('form', { name: 'New score config' });
      await labelled(form, 'Name').fill('tone');
      await labelled(form, 'Type').selectOption('categorical');
      await labelled(form, 'Categories').fill('friendly, neutral, rude');
    });
    const table = ui.page.getByRole('table', { name: 'Score configs, newest first' });
    await expect
      .poll(async () => table.textContent(), { timeout: ACTION_MS })
      .toMatch(/tone.*One of some categories.*friendly, neutral, rude.*helpfulness.*Number.*0 – 1/s);
  });

  step('scores a model call in place beside the waterfall, its value typed by the config; the score stays after a reload', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces/turn?run=turn-llm`);
    const panel = ui.page.getByRole('complementary');
    const form = panel.getByRole('form', { name: 'Add a score to this run' });
    await form.waitFor();
    // A categorical config offers its categories.
    await labelled(form, 'Name').fill('tone');
    await expect
      .poll(async () => labelled(form, 'Value').locator('option').allTextContents(), { timeout: ACTION_MS })
      .toEqual(['Choose…', 'friendly', 'neutral', 'rude']);
    // A number out of the config's range is refused before it is sent.
    await labelled(form, 'Name').fill('helpfulness');
    await labelled(form, 'Value').fill('1.5');
    await form.getByRole('button', { name: 'Add score' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toBe('At most 1.');
    await labelled(form, 'Value').fill('0.8');
    await labelled(form, 'Comment').fill('right, but long');
    await form.getByRole('button', { name: 'Add score' }).click();
    const scores = panel.getByRole('list', { name: 'Scores of this run' });
    await expect.poll(async () => scores.textContent(), { timeout: ACTION_MS }).toMatch(/helpfulness\s*0\.8\s*api.*you.*right, but long/s);

    const stored = await apiCall<{ items: { name: string; value: unknown; comment: string; runId: string }[] }>(
      ui.dashboard.server.url,
      ui.token,
      'GET',
      `/v1/projects/${ui.projectId}/scores?runId=turn-llm`,
    );
    expect(stored.body.items.map((s) => [s.name, s.value, s.comment])).toEqual([['helpfulness', 0.8, 'right, but long']]);

    await ui.page.reload();
    await expect.poll(async () => ui.page.getByRole('list', { name: 'Scores of this run' }).textContent(), { timeout: ACTION_MS }).toContain('helpfulness');
    // The trace's scores include its runs'.
    await expect
      .poll(async () => ui.page.getByRole('list', { name: 'Scores of this trace' }).textContent(), { timeout: ACTION_MS })
      .toMatch(/helpfulness.*on chat gpt-4o/s); // the run by its name
    await ui.page.getByRole('complementary').getByRole('button', { name: 'Delete the score helpfulness' }).click();
    await expect.poll(async () => ui.page.getByRole('complementary').getByRole('list', { name: 'Scores of this run' }).count(), { timeout: ACTION_MS }).toBe(0);
  });

  step('scores a session as the conversation it was', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/sessions/conv-9`);
    const form = ui.page.getByRole('form', { name: 'Add a score to this session' });
    await labelled(form, 'Name').fill('tone');
    // The config's categories are offered once the configs have loaded (a slow machine may type first).
    await expect.poll(async () => labelled(form, 'Value').locator('option').allTextContents(), { timeout: ACTION_MS }).toContain('friendly');
    await labelled(form, 'Value').selectOption('friendly');
    await form.getByRole('button', { name: 'Add score' }).click();
    await expect
      .poll(async () => ui.page.getByRole('list', { name: 'Scores of this session' }).textContent(), { timeout: ACTION_MS })
      .toMatch(/tone\s*friendly/);
  });

  step('filters the runs list by a score, its rows showing their scores as chips, and shows one score as a column', async () => {
    const given = await apiCall<{ results: { status: string }[] }>(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${ui.projectId}/scores/batch`, {
      scores: [
        { runId: 'turn-llm', name: 'helpfulness', value: 0.9 },
        { runId: 'turn-llm', name: 'tone', value: 'friendly' },
        { runId: 'turn', name: 'helpfulness', value: 0.2 },
      ],
    });
    expect(given.body.results.map((r) => r.status)).toEqual(['created', 'created', 'created']);
    await ui.page.goto(`/projects/${ui.projectId}/runs`);
    const table = ui.page.getByRole('table', { name: 'Runs' });
    const rows = table.getByRole('rowgroup', { name: /: rows$/ }).getByRole('row');
    // Every row shows its own scores: name and value.
    await expect
      .poll(async () => table.textContent(), { timeout: ACTION_MS })
      .toMatch(/chat gpt-4o.*helpfulness\s*0\.9.*tone\s*friendly.*support-agent.*helpfulness\s*0\.2/s);

    await ui.page.getByRole('button', { name: /Filters/ }).click();
    const form = ui.page.getByRole('search', { name: 'Run filters' });
    await labelled(form, 'Score name').fill('helpfulness');
    await labelled(form, 'Score test').selectOption('>=');
    await labelled(form, 'Score value').fill('0.5');
    await form.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => new URL(ui.page.url()).searchParams.get('score.helpfulness>'), { timeout: ACTION_MS }).toBe('0.5');
    await expect.poll(async () => rows.count(), { timeout: ACTION_MS }).toBe(1);
    await expect(rows.first().textContent()).resolves.toMatch(/chat gpt-4o.*helpfulness\s*0\.9.*tone\s*friendly/s);
    await expect(ui.page.getByRole('list', { name: 'Active filters' }).textContent()).resolves.toMatch(/score helpfulness ≥:\s*0\.5/);

    // One score as the column: its value alone, kept in the URL with the filter.
    await ui.page.getByRole('combobox', { name: 'Score column' }).selectOption('tone');
    await expect.poll(() => new URL(ui.page.url()).searchParams.get('scoreColumn'), { timeout: ACTION_MS }).toBe('tone');
    await expect.poll(async () => rows.first().textContent(), { timeout: ACTION_MS }).not.toContain('helpfulness');
    await expect(rows.first().textContent()).resolves.toContain('friendly');
    expect(new URL(ui.page.url()).searchParams.get('score.helpfulness>')).toBe('0.5');
  });
});
