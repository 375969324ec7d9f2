/**
 * Model connections in a real browser (chromium + playwright-core, on a server of its own that may
 * reach the local OpenAI-compatible test server): an admin creates one in Settings, tests it (the
 * answer, then a refusal), edits it with the key field left empty (the stored key kept, never shown)
 * and deletes it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { apiCall, chromiumAvailable, CHROMIUM, labelled, stepsIn, mintToken, openDashboard, signIn, type Dashboard } from './helpers/browser.js';
import { completion, failure, startOpenAiServer, type OpenAiServer } from './helpers/openai-server.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-model-connections');
const ACTION_MS = 8_000;
const KEY = 'sk-browser-0123456789abcdefLAST';
const available = chromiumAvailable();
const suite = available || process.env.CI ? describe : describe.skip;

suite('model connections in Settings in a real browser (chromium + playwright-core)', () => {
  let dashboard: Dashboard | undefined;
  let models: OpenAiServer;
  let page: Page;
  let token = '';
  const step = stepsIn(ARTIFACTS, () => ({ page, dashboard }), 30_000);
  const table = () => page.getByRole('table', { name: 'Model connections, newest first' });

  beforeAll(async () => {
    if (!available) throw new Error(`chromium (${CHROMIUM}) is required in CI: .ci/run installs it with apt`);
    mkdirSync(ARTIFACTS, { recursive: true });
    models = await startOpenAiServer();
    // The dashboard's server is a child process that takes this environment: the local test server is allowed.
    process.env.SIGHTLINE_MODEL_ALLOW_PRIVATE = 'true';
    try {
      dashboard = await openDashboard(ACTION_MS);
    } finally {
      delete process.env.SIGHTLINE_MODEL_ALLOW_PRIVATE;
    }
    page = dashboard.page;
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, 'e2e-connections@example.test');
    token = await mintToken(page, 'e2e-connections');
  }, 120_000);

  afterAll(async () => {
    await dashboard?.close();
    await models?.close();
  }, 30_000);

  step('creates a connection: its key shown only by its last 4 characters', async () => {
    await page.goto('/settings#model-connections');
    await page.getByRole('button', { name: 'New model connection' }).click();
    const form = page.getByRole('form', { name: 'New model connection' });
    await form.waitFor();
    await labelled(form, 'Name').fill('judge');
    await labelled(form, 'Base URL').fill(models.baseURL);
    await labelled(form, 'Model').fill('gpt-4o-mini');
    await labelled(form, 'API key').fill(KEY);
    await labelled(form, 'Monthly budget (USD)').fill('2');
    await form.getByRole('button', { name: 'Create connection' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toMatch(/judge.*gpt-4o-mini.*…LAST/s);
    expect(await page.content()).not.toContain(KEY);
  });

  step('tests it: the answer with its cost, then the endpoint’s refusal', async () => {
    models.script(completion('{"ok": true}', { prompt_tokens: 1000, completion_tokens: 200 }));
    await page.getByRole('button', { name: 'Test the model connection judge' }).click();
    await expect
      .poll(async () => page.getByRole('status').allTextContents(), { timeout: ACTION_MS })
      .toContainEqual(expect.stringMatching(/judge: the model answered in JSON/));
    expect(models.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    models.script(failure(401, `Incorrect API key provided: ${KEY}`));
    await page.getByRole('button', { name: 'Test the model connection judge' }).click();
    await expect
      .poll(async () => page.getByRole('status').allTextContents(), { timeout: ACTION_MS })
      .toContainEqual(expect.stringMatching(/The model endpoint answered 401: Incorrect API key provided: \[redacted\]/));
    expect(await page.content()).not.toContain(KEY);
  });

  step('edits it with the key field empty: the stored key is kept', async () => {
    await page.getByRole('button', { name: 'Edit the model connection judge' }).click();
    const form = page.getByRole('form', { name: 'Edit the model connection judge' });
    await form.waitFor();
    expect(await labelled(form, 'API key').inputValue()).toBe('');
    await labelled(form, 'Monthly budget (USD)').fill('5');
    await form.getByRole('button', { name: 'Save connection' }).click();
    await form.waitFor({ state: 'detached' });
    const list = await apiCall<{ items: { monthlyBudgetUsd: number; apiKeyHint: string }[] }>(dashboard!.server.url, token, 'GET', '/v1/model-connections');
    expect(list.body.items).toMatchObject([{ monthlyBudgetUsd: 5, apiKeyHint: '…LAST' }]);
  });

  step('deletes it', async () => {
    await page.getByRole('button', { name: 'Delete the model connection judge' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete connection' }).click();
    await expect.poll(async () => page.getByText('No model connections').count(), { timeout: ACTION_MS }).toBeGreaterThan(0);
  });
});
