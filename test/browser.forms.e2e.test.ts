/**
 * The dashboard's forms and page furniture in a real browser (the same machinery as
 * test/browser.e2e.test.ts, on a server and a user of its own): an error-rate threshold typed and shown
 * in percent and sent as a fraction, checked before sending; a problem's field faults named as the form
 * names the field; a title per page; the render preview following a new version; chat templates
 * edited message by message; a run linking to the prompt version its metadata names, its cost shown
 * to two significant digits. Skipped without chromium locally, a failure in CI.
 */
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { apiCall, browserSuite, formScope, labelled } from './helpers/browser.js';

const ARTIFACTS = join(new URL('..', import.meta.url).pathname, 'test-artifacts', 'screenshots-forms');
const ACTION_MS = 8_000;
const LOGIN = 'e2e-forms@example.test';
const PROJECT = 'forms-project';
const MONITOR = 'forms error rate';
const GREETING = 'forms-greeting';
const CHAT = 'forms-chat';

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 25_000, login: LOGIN, tokenName: 'e2e-forms', project: PROJECT, viewport: null };

browserSuite('the dashboard’s forms in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  const api = async <T>(method: string, path: string, body?: unknown) => {
    const response = await apiCall<T>(ui.dashboard.server.url, ui.token, method, path, body);
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
    return response.body;
  };
  const { step } = ui;
  const titled = (title: string) => expect.poll(() => ui.page.title(), { timeout: ACTION_MS, interval: 100 }).toBe(title);

  beforeAll(async () => {
    await api('POST', '/v1/prompts', { name: GREETING, template: 'Hello {{customer}}.' });
    await api('POST', '/v1/prompts', {
      name: CHAT,
      template: [
        { role: 'system', content: 'You help {{customer}}.' },
        { role: 'user', content: '{{question}}' },
      ],
    });
  }, 120_000);

  step('takes an error-rate threshold in percent, checks its range before sending, and shows it back in percent', async () => {
    const sent: string[] = [];
    ui.page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith(`/projects/${ui.projectId}/monitors`)) sent.push(request.postData() ?? '');
    });
    await ui.page.goto(`/projects/${ui.projectId}/monitors`);
    await ui.page.getByRole('button', { name: 'New monitor' }).first().click();
    const form = await formScope(ui.page);
    await labelled(form, 'Name').fill(MONITOR);
    await labelled(form, 'Metric').selectOption('error_rate');
    await labelled(form, 'Operator').selectOption('>');
    const threshold = labelled(form, 'Threshold');
    await threshold.fill('150');
    // Said next to the field, which is marked invalid and described by it; nothing is sent.
    const fault = form.getByRole('alert').filter({ hasText: 'An error rate is a percentage from 0 to 100.' });
    await fault.waitFor();
    expect(await threshold.getAttribute('aria-invalid')).toBe('true');
    expect(await threshold.getAttribute('aria-describedby')).toContain(await fault.getAttribute('id'));
    await form.getByRole('button', { name: 'Create monitor' }).click();
    await expect.poll(() => ui.page.evaluate<string | null>("document.activeElement.getAttribute('aria-invalid')"), { timeout: ACTION_MS }).toBe('true');
    expect(sent).toEqual([]);

    await threshold.fill('5');
    await fault.waitFor({ state: 'detached' });
    await form.getByRole('button', { name: 'Create monitor' }).click();
    await ui.page.getByRole('button', { name: 'Open monitor' }).click();
    await ui.page.waitForURL(/\/monitors\/mon_/);
    const stored = await api<{ items: { name: string; metric: string; threshold: { op: string; value: number } }[] }>(
      'GET',
      `/v1/projects/${ui.projectId}/monitors`,
    );
    expect(stored.items.find((m) => m.name === MONITOR)).toMatchObject({ metric: 'error_rate', threshold: { op: '>', value: 0.05 } });
    expect(sent).toHaveLength(1);

    await ui.page.getByText('alert while error rate > 5 %').waitFor();
    await ui.page.getByRole('button', { name: 'Edit', exact: true }).click();
    expect(await labelled(await formScope(ui.page), 'Threshold').inputValue()).toBe('5');
    await ui.page.keyboard.press('Escape');
  });

  step('titles every page: the page, where it is, then Sightline', async () => {
    await titled(`${MONITOR} · Monitors · ${PROJECT} · Sightline`);
    const pages: [string, string][] = [
      ['/projects', 'Projects · Sightline'],
      [`/projects/${ui.projectId}/runs`, `Runs · ${PROJECT} · Sightline`],
      [`/projects/${ui.projectId}/monitors`, `Monitors · ${PROJECT} · Sightline`],
      ['/prompts', 'Prompts · Sightline'],
      [`/prompts/${GREETING}`, `${GREETING} · Prompts · Sightline`],
      ['/settings', "Settings · e2e-forms's organization · Sightline"],
      ['/no-such-page', 'Page not found · Sightline'],
    ];
    for (const [path, title] of pages) {
      await ui.page.goto(path);
      await titled(title);
    }
  });

  step('names a field fault by the field, never by its JSON pointer', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/monitors`);
    await ui.page.getByRole('button', { name: 'New monitor' }).first().click();
    const form = await formScope(ui.page);
    await labelled(form, 'Name').fill('forms webhooks');
    await labelled(form, 'Webhook URLs').fill('https://hooks.example.com/ok\nhttps://user:secret@hooks.example.com/x');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    const alert = form.getByRole('alert').filter({ hasText: 'Validation failed' });
    await alert.getByText('Webhook URL 2:').waitFor();
    expect(await alert.textContent()).toContain('Webhook URL 2: Must not contain credentials.');
    expect(await alert.textContent()).not.toContain('/webhookUrls');
    await ui.page.keyboard.press('Escape');
  });

  step('renders the newest version in the preview once it is created, without a reload', async () => {
    await ui.page.goto(`/prompts/${GREETING}`);
    const preview = ui.page.getByRole('region', { name: 'Render preview' });
    await preview.getByRole('group', { name: 'Variables of v1' }).waitFor();
    await ui.page.getByRole('button', { name: 'New version' }).click();
    const form = await formScope(ui.page);
    await labelled(form, 'Template').fill('Hi {{customer}}, about {{topic}}.');
    await form.getByRole('button', { name: 'Create version' }).click();
    await preview.getByRole('group', { name: 'Variables of v2' }).waitFor();
    await labelled(preview, 'customer').fill('Ada');
    await labelled(preview, 'topic').fill('billing');
    await preview.getByRole('button', { name: 'Render' }).click();
    await preview.getByText('Hi Ada, about billing.').waitFor();
  });

  step('edits a chat template message by message: add, reorder, remove, change a role', async () => {
    await ui.page.goto(`/prompts/${CHAT}`);
    await ui.page.getByRole('button', { name: 'New version' }).click();
    const form = await formScope(ui.page);
    expect(await form.getByLabel('Template', { exact: true }).count()).toBe(0); // no JSON textarea
    expect(await form.getByLabel('Content of message 1').inputValue()).toBe('You help {{customer}}.');
    expect(await form.getByLabel('Role of message 2').inputValue()).toBe('user');
    await form.getByRole('button', { name: 'Add message' }).click();
    expect(await form.getByLabel('Role of message 3').inputValue()).toBe('assistant');
    await form.getByLabel('Content of message 3').fill('Sure, {{customer}}.');
    await form.getByRole('button', { name: 'Move message 3 up' }).click();
    await form.getByRole('button', { name: 'Remove message 1' }).click();
    await form.getByLabel('Role of message 2').selectOption('tool');
    await form.getByRole('button', { name: 'Create version' }).click();
    await ui.page.getByRole('dialog').first().waitFor({ state: 'hidden' });
    const version = await api<{ template: unknown }>('GET', `/v1/prompts/${CHAT}/versions/2`);
    expect(version.template).toEqual([
      { role: 'assistant', content: 'Sure, {{customer}}.' },
      { role: 'tool', content: '{{question}}' },
    ]);
  });

  step('links a run to the prompt version its metadata names, and shows its cost under a cent', async () => {
    const start = Date.now() - 60_000;
    const batch = await api<{ results: { status: string }[] }>('POST', `/v1/projects/${ui.projectId}/runs/batch`, {
      runs: [
        {
          id: 'forms-run',
          name: 'greet-customer',
          kind: 'llm',
          status: 'succeeded',
          startTime: new Date(start).toISOString(),
          endTime: new Date(start + 800).toISOString(),
          cost: 0.00042,
          metadata: { prompt: GREETING, promptVersion: 1 },
        },
      ],
    });
    expect(batch.results.map((r) => r.status)).toEqual(['created']);
    await ui.page.goto(`/projects/${ui.projectId}/runs/forms-run`);
    await titled('greet-customer · Sightline');
    await ui.page.getByText('$0.00042').first().waitFor();
    const link = ui.page.getByRole('link', { name: `${GREETING} v1` });
    expect(await link.getAttribute('href')).toBe(`/prompts/${GREETING}?version=1`);
    await link.click();
    await ui.page.waitForURL((url) => url.pathname === `/prompts/${GREETING}` && url.search === '?version=1');
    // The version it used is the one marked and opened in the list.
    const entry = ui.page.locator('#version-1');
    await expect.poll(() => entry.getAttribute('aria-current'), { timeout: ACTION_MS }).toBe('true');
    expect(await entry.locator('details').getAttribute('open')).not.toBeNull();
  });

  step('marks tokens it estimated, and the cost computed from them, on the run page, the runs list, the trace and the sessions list', async () => {
    const at = new Date(Date.now() - 20_000).toISOString();
    await api('POST', `/v1/projects/${ui.projectId}/runs`, {
      id: 'estimated-run',
      traceId: 'estimated-trace',
      sessionId: 'estimated-session',
      name: 'streamed answer',
      kind: 'llm',
      status: 'succeeded',
      startTime: at,
      endTime: at,
      model: 'gpt-4o',
      inputs: { messages: [{ role: 'user', parts: [{ type: 'text', content: 'Hello, world!' }] }] },
      outputs: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello, world! How are you?' }] }] },
    });
    await ui.page.goto(`/projects/${ui.projectId}/runs/estimated-run`);
    await titled('streamed answer · Sightline');
    await ui.page.getByText('12 (estimated from the run’s texts: it reported none)').waitFor();
    await ui.page.getByText(/computed from estimated tokens at the built-in price of gpt-4o/).waitFor();
    // In the runs list, the tokens and the cost computed from them are marked as estimates.
    await ui.page.goto(`/projects/${ui.projectId}/runs?name=${encodeURIComponent('streamed answer')}`);
    const row = ui.page
      .getByRole('table', { name: 'Runs' })
      .getByRole('rowgroup', { name: /: rows$/ })
      .getByRole('row')
      .first();
    await expect.poll(async () => row.textContent(), { timeout: ACTION_MS }).toMatch(/streamed answer.*≈12.*≈\$/s);
    // A trace's totals say how many of its tokens, and how much of its cost, are estimated.
    await ui.page.goto(`/projects/${ui.projectId}/traces/estimated-trace`);
    const totals = ui.page.getByRole('definition').filter({ hasText: '≈12' });
    await totals.getByText('12 estimated from runs’ texts').waitFor();
    await ui.page
      .getByText(/from estimated tokens/)
      .first()
      .waitFor();
    // …and so does the session's row in the sessions list, with what the mark means in its title.
    await ui.page.goto(`/projects/${ui.projectId}/sessions`);
    const cell = ui.page
      .getByRole('table', { name: 'Sessions' })
      .getByRole('row', { name: /estimated-session/ })
      .getByRole('cell', { name: '≈12' });
    await expect
      .poll(() => cell.getAttribute('title'), { timeout: ACTION_MS })
      .toMatch(/^12 tokens estimated from runs’ texts .*of the cost computed from them$/);
  });

  step('links a generation Langfuse’s ingestion API sent with a prompt name and version to that prompt version', async () => {
    const at = new Date(Date.now() - 30_000).toISOString();
    const response = await fetch(`${ui.dashboard.server.url}/api/public/ingestion`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${ui.projectId}:${ui.token}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        batch: [
          {
            id: 'evt-1',
            timestamp: at,
            type: 'generation-create',
            body: {
              id: 'langfuse-greeting',
              name: 'greet via langfuse',
              startTime: at,
              endTime: at,
              model: 'gpt-4o-mini',
              promptName: GREETING,
              promptVersion: 1,
            },
          },
        ],
      }),
    });
    expect(response.status).toBe(207);
    expect(await response.json()).toEqual({ successes: [{ id: 'evt-1', status: 201 }], errors: [] });
    await ui.page.goto(`/projects/${ui.projectId}/runs/langfuse-greeting`);
    await titled('greet via langfuse · Sightline');
    const link = ui.page.getByRole('link', { name: `${GREETING} v1` });
    expect(await link.getAttribute('href')).toBe(`/prompts/${GREETING}?version=1`);
  });
});
