/**
 * Datasets in a real browser (chromium + playwright-core, the machinery of test/browser.e2e.test.ts on a
 * server and a user of its own): a dataset created on the Datasets page; a model call added to it from
 * its run page; the item read on the dataset's page (its input and expected output as text); its expected
 * output edited (a new version, a fault in the JSON named first); the older version read as it was, and
 * read-only; an item added by hand and one deleted, each a version; the pages at phone width.
 */
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { apiCall, browserSuite, labelled } from './helpers/browser.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-datasets');
const ACTION_MS = 8_000;
const at = (s: number) => new Date(Date.now() - 3_600_000 + s * 1000).toISOString();

interface Item {
  id: string;
  input: unknown;
  expectedOutput: unknown;
  sourceRunId: string | null;
}

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 30_000, login: 'e2e-datasets@example.test', project: 'datasets-project' };

browserSuite('datasets in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  let datasetId = '';
  let itemId = '';
  const { step } = ui;
  const items = (version?: number) =>
    apiCall<{ items: Item[] }>(
      ui.dashboard.server.url,
      ui.token,
      'GET',
      `/v1/datasets/${datasetId}/items${version === undefined ? '' : `?version=${version}`}`,
    );
  const table = () => ui.page.getByRole('table', { name: /^Items of Refund questions at version \d+$/ });
  /** The dataset's facts: its version, then its items. */
  const facts = (n = 0) => ui.page.locator('.sl-ds-facts dd').nth(n);

  beforeAll(async () => {
    const batch = await apiCall(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${ui.projectId}/runs/batch`, {
      runs: [
        {
          id: 'refund-llm',
          name: 'chat gpt-4o',
          kind: 'llm',
          status: 'succeeded',
          startTime: at(0),
          endTime: at(2),
          inputs: { messages: [{ role: 'user', content: 'Where is my refund?' }] },
          outputs: { content: 'It was issued on Monday.' },
        },
      ],
    });
    expect(batch.status).toBe(200);
  }, 120_000);

  step('creates a dataset on the Datasets page, reached from the main navigation', async () => {
    await ui.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datasets' }).click();
    await ui.page.getByRole('heading', { level: 1, name: 'Datasets' }).waitFor();
    await expect.poll(() => ui.page.title(), { timeout: ACTION_MS }).toBe('Datasets · Sightline');
    await ui.page.getByText('No datasets yet').waitFor();
    await ui.page.getByRole('button', { name: 'New dataset' }).click();
    const form = ui.page.getByRole('form', { name: 'New dataset' });
    await labelled(form, 'Name').fill('Refund questions');
    await labelled(form, 'Description').fill('Hard support tickets');
    await form.getByRole('button', { name: 'Create dataset' }).click();
    // A new dataset opens on its page, to add its first items.
    await ui.page.waitForURL(/\/datasets\/ds_[^/?]+$/);
    datasetId = new URL(ui.page.url()).pathname.split('/').pop()!;
    await ui.page.getByRole('heading', { level: 1, name: 'Refund questions' }).waitFor();
    await expect.poll(() => ui.page.title(), { timeout: ACTION_MS }).toBe('Refund questions · Datasets · Sightline');
    await ui.page.getByText('Hard support tickets').waitFor();
    await ui.page.getByText('No items yet').waitFor();
    await expect(facts().textContent()).resolves.toBe('v0');

    // The list shows it, and its name filter finds it (and nothing for another name).
    await ui.page.goto('/datasets');
    const list = ui.page.getByRole('table', { name: 'Datasets, newest first' });
    await expect.poll(async () => list.textContent(), { timeout: ACTION_MS }).toMatch(/Refund questions.*Hard support tickets.*0.*v0/s);
    await labelled(ui.page, 'Search datasets').fill('nothing like it');
    await ui.page.getByText('No dataset matches these filters').waitFor();
    await labelled(ui.page, 'Search datasets').fill('REFUND');
    await list.getByRole('link', { name: 'Refund questions' }).waitFor();
  });

  step('adds a model call to the dataset from its run page, then opens the dataset', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/runs/refund-llm`);
    await ui.page.getByRole('button', { name: 'Add to dataset' }).click();
    const form = ui.page.getByRole('form', { name: 'Add this run to a dataset' });
    await expect
      .poll(async () => labelled(form, 'Dataset').locator('option').allTextContents(), { timeout: ACTION_MS })
      .toEqual(['Choose a dataset…', 'Refund questions (v0, 0 items)']);
    await labelled(form, 'Dataset').selectOption(datasetId);
    await form.getByRole('button', { name: 'Add to dataset' }).click();
    const done = ui.page.getByRole('dialog').getByRole('status');
    await expect.poll(async () => done.textContent(), { timeout: ACTION_MS }).toMatch(/^Added to Refund questions as item dsi_\S+ \(version 1\)\.$/);
    const stored = await items();
    expect(stored.body.items).toEqual([
      expect.objectContaining({
        input: { messages: [{ role: 'user', content: 'Where is my refund?' }] },
        expectedOutput: { content: 'It was issued on Monday.' },
        sourceRunId: 'refund-llm',
      }),
    ]);
    itemId = stored.body.items[0]!.id;
    // The form's buttons are gone: the focus is on the way to the dataset.
    await expect.poll(() => ui.page.evaluate<string | undefined>('document.activeElement?.textContent'), { timeout: ACTION_MS }).toBe('Open Refund questions');
    await ui.page.getByRole('dialog').getByRole('link', { name: 'Open Refund questions' }).click();
    await ui.page.waitForURL(`**/datasets/${datasetId}`);
  });

  step('shows the item: its input and expected output as text, its source run, the full values a click away', async () => {
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toContain('Where is my refund?');
    await expect(table().textContent()).resolves.toContain('It was issued on Monday.');
    await expect(facts().textContent()).resolves.toBe('v1');
    await expect(table().getByRole('link', { name: 'refund-llm' }).getAttribute('href')).resolves.toBe(`/projects/${ui.projectId}/runs/refund-llm`);
    const toggle = table().getByRole('button', { name: `Details of item ${itemId}` });
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await toggle.click();
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    // The values as the run page reads them: a conversation, message by message.
    await expect.poll(async () => table().getByRole('region', { name: 'Input' }).textContent(), { timeout: ACTION_MS }).toMatch(/user\s*Where is my refund\?/);
    await expect(table().getByRole('region', { name: 'Expected output' }).textContent()).resolves.toMatch(/assistant\s*It was issued on Monday\./);
  });

  step('edits the expected output as a new version, a fault in its JSON named by the field first', async () => {
    await table()
      .getByRole('button', { name: `Edit item ${itemId}` })
      .click();
    const form = ui.page.getByRole('form', { name: `Edit item ${itemId}` });
    await expect(labelled(form, 'Expected output').inputValue()).resolves.toBe('{\n  "content": "It was issued on Monday."\n}');
    await labelled(form, 'Expected output').fill('It was issued on Tuesday.');
    await form.getByRole('button', { name: 'Save as a new version' }).click();
    await expect
      .poll(async () => form.getByRole('alert').textContent(), { timeout: ACTION_MS })
      .toMatch(/^Expected output is not valid JSON \(.+\)\. Text goes in double quotes: "like this"\.$/);
    await expect(labelled(form, 'Expected output').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect.poll(() => ui.page.evaluate<string | undefined>('document.activeElement?.tagName'), { timeout: ACTION_MS }).toBe('TEXTAREA');
    expect((await items()).body.items[0]!.expectedOutput).toEqual({ content: 'It was issued on Monday.' });

    await labelled(form, 'Expected output').fill('"It was issued on Tuesday."');
    await form.getByRole('button', { name: 'Save as a new version' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(async () => facts().textContent(), { timeout: ACTION_MS }).toBe('v2');
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toContain('It was issued on Tuesday.');
    expect((await items()).body.items.map((i) => i.expectedOutput)).toEqual(['It was issued on Tuesday.']);
    expect((await items(1)).body.items.map((i) => i.expectedOutput)).toEqual([{ content: 'It was issued on Monday.' }]);
  });

  step('reads the older version with the version selector: the old value, read-only, in the URL', async () => {
    const versions = labelled(ui.page, 'Version');
    await expect(versions.locator('option').allTextContents()).resolves.toEqual(['v2 (latest)', 'v1']);
    await versions.selectOption('1');
    await ui.page.waitForURL(`**/datasets/${datasetId}?version=1`);
    await ui.page.getByRole('table', { name: 'Items of Refund questions at version 1' }).waitFor();
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toContain('It was issued on Monday.');
    await expect(table().textContent()).resolves.not.toContain('Tuesday');
    await expect(ui.page.getByRole('note').textContent()).resolves.toMatch(/^You are reading version 1 of 2, as it was: it is read-only\./);
    await expect(ui.page.getByRole('button', { name: 'Add item' }).count()).resolves.toBe(0);
    await expect(ui.page.getByRole('button', { name: /^(Edit|Delete) item/ }).count()).resolves.toBe(0);

    // A reload keeps the version; Back returns to the latest.
    await ui.page.reload();
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toContain('It was issued on Monday.');
    await ui.page.goBack();
    await ui.page.waitForURL(`**/datasets/${datasetId}`);
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toContain('It was issued on Tuesday.');
    await expect(labelled(ui.page, 'Version').inputValue()).resolves.toBe('2');
  });

  step('adds an item by hand (a fault in its metadata named first) and deletes one: each a new version', async () => {
    await ui.page.getByRole('button', { name: 'Add item' }).click();
    const form = ui.page.getByRole('form', { name: 'Add an item' });
    await labelled(form, 'Id').fill('refund-2');
    await labelled(form, 'Input').fill('{"question": "Can I get a refund?"}');
    await labelled(form, 'Expected output').fill('"Yes, within 30 days"');
    await labelled(form, 'Metadata').fill('["en"]');
    await form.getByRole('button', { name: 'Add item' }).click();
    await expect
      .poll(async () => form.getByRole('alert').textContent(), { timeout: ACTION_MS })
      .toBe('Metadata must be a JSON object, such as {"lang": "en"}.');
    await labelled(form, 'Metadata').fill('{"lang": "en"}');
    await form.getByRole('button', { name: 'Add item' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(async () => facts().textContent(), { timeout: ACTION_MS }).toBe('v3');
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).toMatch(/refund-2.*Can I get a refund\?.*Yes, within 30 days/s);

    // An id the dataset has had is refused by the server, its fault named by the field.
    await ui.page.getByRole('button', { name: 'Add item' }).click();
    const again = ui.page.getByRole('form', { name: 'Add an item' });
    await labelled(again, 'Id').fill('refund-2');
    await labelled(again, 'Input').fill('"again"');
    await again.getByRole('button', { name: 'Add item' }).click();
    await expect.poll(async () => again.getByRole('alert').textContent(), { timeout: ACTION_MS }).toMatch(/refund-2/);
    await again.getByRole('button', { name: 'Cancel' }).click();

    await table()
      .getByRole('button', { name: `Delete item ${itemId}` })
      .click();
    await ui.page.getByRole('dialog', { name: 'Delete item' }).getByRole('button', { name: 'Delete item' }).click();
    await expect.poll(async () => facts().textContent(), { timeout: ACTION_MS }).toBe('v4');
    await expect.poll(async () => table().textContent(), { timeout: ACTION_MS }).not.toContain('Tuesday');
    await expect(facts(1).textContent()).resolves.toBe('1 item');
    expect((await items()).body.items.map((i) => i.id)).toEqual(['refund-2']);
    expect((await items(3)).body.items.map((i) => i.id).sort()).toEqual([itemId, 'refund-2'].sort());
  });

  step('works at phone width: no page scrolls sideways', async () => {
    await ui.page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of ['/datasets', `/datasets/${datasetId}`, `/datasets/${datasetId}?version=1`]) {
        await ui.page.goto(path);
        await ui.page.getByRole('heading', { level: 1 }).first().waitFor();
        await ui.page.getByRole('table').first().waitFor();
        if (path !== '/datasets')
          await table()
            .getByRole('button', { name: /^Details of item/ })
            .first()
            .click();
        const overflow = await ui.page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow, `${path} is ${overflow}px wider than the screen`).toBeLessThanOrEqual(1);
      }
    } finally {
      await ui.page.setViewportSize({ width: 1440, height: 900 });
    }
  });
});
