/**
 * Evaluator rules in a real browser (chromium + playwright-core, a server of its own that runs the
 * background workers): a rule created on the project's Evaluators page, reached from the project's
 * tabs; a run sent through the API scored by it in the background, its Done count shown; the rule
 * edited (paused) and deleted; an LLM judge rule whose model connection and prompt are picked from the
 * organization's lists.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { apiCall, browserSuite, labelled } from './helpers/browser.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-evaluators');
/** The dashboard's server takes this environment: a connection on 127.0.0.1 is allowed. */
const ACTION_MS = 8_000;
const PRIVATE_MODELS = { SIGHTLINE_MODEL_ALLOW_PRIVATE: 'true' };
const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 45_000, login: 'e2e-evaluators@example.test', project: 'evaluators-project', serverEnv: PRIVATE_MODELS };

browserSuite('evaluator rules in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  const { step } = ui;
  const rules = () => ui.page.getByRole('table', { name: 'Evaluator rules' });

  step('creates a rule on the project’s Evaluators page', async () => {
    await ui.page.goto(`${ui.dashboard.server.url}/projects/${ui.projectId}/traces`);
    await ui.page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Evaluators' }).click();
    await expect.poll(() => ui.page.title(), { timeout: ACTION_MS }).toMatch(/^Evaluators · /);
    await ui.page.getByText('No evaluator rules yet').waitFor();
    await ui.page.getByRole('button', { name: 'New rule' }).click();
    const form = ui.page.getByRole('form', { name: 'New evaluator rule' });
    await labelled(form, 'Name').fill('Short answers');
    await labelled(form, 'Score name').fill('short');
    await labelled(form, 'Filter').fill('{"kind": "llm"}');
    await labelled(form, 'Evaluator').selectOption('length');
    await labelled(form, 'Settings').fill('{"max": 20}');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await rules().getByText('Short answers').waitFor();
    await expect.poll(() => rules().getByRole('row').count(), { timeout: ACTION_MS }).toBe(2);
  });

  step('scores a new run in the background; the rule shows it done', async () => {
    const batch = await apiCall(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${ui.projectId}/runs/batch`, {
      runs: [{ name: 'chat', kind: 'llm', status: 'succeeded', startTime: at(0), endTime: at(1), outputs: { text: 'Yes.' } }],
    });
    expect(batch.status).toBe(200);
    await expect
      .poll(
        async () => {
          const listed = await apiCall<{ items: { counts: { done: number } }[] }>(
            ui.dashboard.server.url,
            ui.token,
            'GET',
            `/v1/projects/${ui.projectId}/evaluators`,
          );
          return listed.body.items[0]?.counts.done;
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    await ui.page.reload();
    const row = rules().getByRole('row', { name: /Short answers/ });
    await row.waitFor();
    // Name, evaluator, filter, rate, pending, done, failed, skipped.
    await expect.poll(() => row.getByRole('cell').nth(5).textContent(), { timeout: ACTION_MS }).toBe('1');
    // The score on the run's trace names the run and the rule by their names, not their ids; the run's name opens it.
    const runId = (batch.body as { results: { id: string }[] }).results[0]!.id;
    await ui.page.goto(`/projects/${ui.projectId}/traces/${runId}`);
    const score = ui.page.getByRole('list', { name: 'Scores of this trace' }).getByRole('listitem').filter({ hasText: 'short' });
    await expect.poll(() => score.textContent(), { timeout: ACTION_MS }).toMatch(/short.*evaluator · on chat · evaluator Short answers/);
    await score.getByRole('button', { name: 'chat' }).click();
    await ui.page.waitForURL(new RegExp(`\\?run=${runId}$`));
    await ui.page.goto(`/projects/${ui.projectId}/evaluators`);
    await rules().getByText('Short answers').waitFor();
  });

  step('pauses the rule, then deletes it', async () => {
    await ui.page.getByRole('button', { name: 'Edit Short answers' }).click();
    const form = ui.page.getByRole('form', { name: 'Edit Short answers' });
    await labelled(form, 'Enabled').uncheck();
    await form.getByRole('button', { name: 'Save rule' }).click();
    await rules().getByText('paused').waitFor();
    await ui.page.getByRole('button', { name: 'Delete Short answers' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Delete rule' }).click();
    await ui.page.getByText('No evaluator rules yet').waitFor();
  });

  step('an LLM judge rule picks its model connection and prompt from the organization’s', async () => {
    const url = ui.dashboard.server.url;
    const connection = await apiCall<{ id: string }>(url, ui.token, 'POST', '/v1/model-connections', {
      name: 'local-judge',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'judge-1',
      monthlyBudgetUsd: 1,
      pricing: { inputPerMillion: 1, outputPerMillion: 1 },
    });
    expect(connection.status).toBe(201);
    const prompt = await apiCall(url, ui.token, 'POST', '/v1/prompts', { name: 'correctness-judge', template: 'Is {{output}} right for {{input}}? JSON.' });
    expect(prompt.status).toBe(201);
    await ui.page.getByRole('button', { name: 'New rule' }).click();
    const form = ui.page.getByRole('form', { name: 'New evaluator rule' });
    await labelled(form, 'Name').fill('Correctness');
    await labelled(form, 'Score name').fill('correctness');
    await labelled(form, 'Evaluator').selectOption('llm_judge');
    await labelled(form, 'Model connection').selectOption({ label: 'local-judge (judge-1)' });
    // The prompt is typed with the store's suggestions; a name no prompt has is said at once.
    await labelled(form, 'Judge prompt').fill('correctness-judg');
    await form.getByText('No prompt is named "correctness-judg" yet').waitFor();
    await expect
      .poll(() => form.locator('datalist option').evaluateAll((options) => options.map((o) => o.getAttribute('value'))))
      .toEqual(['correctness-judge']);
    await labelled(form, 'Judge prompt').fill('correctness-judge');
    await form.getByText('No prompt is named').waitFor({ state: 'detached' });
    expect(JSON.parse(await labelled(form, 'Settings').inputValue())).toEqual({ connectionId: connection.body.id, promptName: 'correctness-judge' });
    await form.getByRole('button', { name: 'Create rule' }).click();
    await rules().getByText('Correctness').waitFor();
    const listed = await apiCall<{ items: { evaluator: unknown }[] }>(url, ui.token, 'GET', `/v1/projects/${ui.projectId}/evaluators`);
    expect(listed.body.items[0]!.evaluator).toEqual({ type: 'llm_judge', connectionId: connection.body.id, promptName: 'correctness-judge' });
  });
});
