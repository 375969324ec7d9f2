/**
 * Model connections in a real browser (chromium + playwright-core, on a server of its own that may
 * reach the local OpenAI-compatible test server): an admin creates one in Settings, tests it (the
 * answer, then a refusal), edits it with the key field left empty (the stored key kept, never shown)
 * and deletes it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { apiCall, browserSuite, labelled } from './helpers/browser.js';
import { completion, failure, startOpenAiServer, type OpenAiServer } from './helpers/openai-server.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-model-connections');
const ACTION_MS = 8_000;
/** The dashboard's server takes this environment: the local test server is allowed. */
const PRIVATE_MODELS = { SIGHTLINE_MODEL_ALLOW_PRIVATE: 'true' };
const KEY = 'sk-browser-0123456789abcdefLAST';

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 30_000, login: 'e2e-connections@example.test', tokenName: 'e2e-connections', serverEnv: PRIVATE_MODELS };

browserSuite('model connections in Settings in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  let models: OpenAiServer;
  const { step } = ui;
  const table = () => ui.page.getByRole('table', { name: 'Model connections, newest first' });

  beforeAll(async () => {
    models = await startOpenAiServer();
  }, 120_000);

  afterAll(async () => {
    await models?.close();
  }, 30_000);

  step('creates a connection: its key shown only by its last 4 characters', async () => {
    await ui.page.goto('/settings#model-connections');
    await ui.page.getByRole('button', { name: 'New model connection' }).click();
    const form = ui.page.getByRole('form', { name: 'New model connection' });
    await form.waitFor();
    await labelled(form, 'Name').fill('judge');
    await labelled(form, 'Base URL').fill(models.baseURL);
    await labelled(form, 'Model').fill('gpt-4o-mini');
    await labelled(form, 'API key').fill(KEY);
    await labelled(form, 'Monthly budget (USD)').fill('2');
    await form.getByRole('button', { name: 'Create connection' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toMatch(/judge.*gpt-4o-mini.*…LAST/s);
    expect(await ui.page.content()).not.toContain(KEY);
  });

  step('tests it: the answer with its cost, then the endpoint’s refusal', async () => {
    models.script(completion('{"ok": true}', { prompt_tokens: 1000, completion_tokens: 200 }));
    await ui.page.getByRole('button', { name: 'Test the model connection judge' }).click();
    await expect
      .poll(async () => ui.page.getByRole('status').allTextContents(), { timeout: ACTION_MS })
      .toContainEqual(expect.stringMatching(/judge: the model answered in JSON/));
    expect(models.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    models.script(failure(401, `Incorrect API key provided: ${KEY}`));
    await ui.page.getByRole('button', { name: 'Test the model connection judge' }).click();
    await expect
      .poll(async () => ui.page.getByRole('status').allTextContents(), { timeout: ACTION_MS })
      .toContainEqual(expect.stringMatching(/The model endpoint answered 401: Incorrect API key provided: \[redacted\]/));
    expect(await ui.page.content()).not.toContain(KEY);
  });

  step('edits it with the key field empty: the stored key is kept', async () => {
    await ui.page.getByRole('button', { name: 'Edit the model connection judge' }).click();
    const form = ui.page.getByRole('form', { name: 'Edit the model connection judge' });
    await form.waitFor();
    expect(await labelled(form, 'API key').inputValue()).toBe('');
    await labelled(form, 'Monthly budget (USD)').fill('5');
    await form.getByRole('button', { name: 'Save connection' }).click();
    await form.waitFor({ state: 'detached' });
    const list = await apiCall<{ items: { monthlyBudgetUsd: number; apiKeyHint: string }[] }>(
      ui.dashboard.server.url,
      ui.token,
      'GET',
      '/v1/model-connections',
    );
    expect(list.body.items).toMatchObject([{ monthlyBudgetUsd: 5, apiKeyHint: '…LAST' }]);
  });

  step('deletes it', async () => {
    await ui.page.getByRole('button', { name: 'Delete the model connection judge' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Delete connection' }).click();
    await expect.poll(async () => ui.page.getByText('No model connections').count(), { timeout: ACTION_MS }).toBeGreaterThan(0);
  });
});
