/**
 * Annotation queues in a real browser (chromium + playwright-core, the machinery of
 * test/browser.e2e.test.ts on a server and a user of its own): a queue of two model calls asking for a
 * categorical and a boolean score, reviewed with the keyboard only (digits choose, Enter completes, s
 * skips): the scores are stored with source `annotation` and the queue's id, the screen moves to the
 * next item, then says the queue is done with its exact counts; an item settled elsewhere meanwhile (a
 * 409) is said to be lost and claimed again; the queues list and the queue page show the progress and
 * add runs by filter; a run and a trace are added from their pages, and a trace is reviewed by its root
 * run; the pages at phone width. With SIGHTLINE_UPDATE_SCREENSHOTS=1 the review screen is saved to
 * docs/screenshots/review.png for docs/scores-and-annotation.md.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { apiCall, browserSuite, expectWithinScreen, labelled, screenshot } from './helpers/browser.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-annotations');
const README_SHOTS = process.env.SIGHTLINE_UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : null;
const ACTION_MS = 8_000;
const at = (s: number) => new Date(Date.now() - 3_600_000 + s * 1000).toISOString();

const QUESTIONS: Record<string, [string, string]> = {
  'refund-llm': ['Where is my refund?', 'It was issued on **Monday**; expect it within 5 business days.'],
  'invoice-llm': ['Can I get an invoice for order 42?', 'Sure: it is attached to your account under Orders › 42.'],
  'address-llm': ['How do I change my address?', 'Go to Settings › Addresses.'],
};

interface Item {
  id: string;
  targetId: string;
  status: string;
}
interface Score {
  name: string;
  value: unknown;
  source: string;
  queueId: string | null;
  runId: string | null;
  comment: string | null;
}

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 45_000, login: 'e2e-annotations@example.test', project: 'annotations-project' };

browserSuite('annotation queues in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  let queueId = '';
  let first = '';
  let second = '';
  const { step } = ui;
  const api = <T = any>(method: string, path: string, body?: unknown) => apiCall<T>(ui.dashboard.server.url, ui.token, method, path, body);
  const queueApi = (rest = '') => `/v1/projects/${ui.projectId}/annotation-queues/${queueId}${rest}`;
  /** The id of the run the review screen shows. */
  const shownTarget = () => ui.page.getByTestId('review-target-id');

  beforeAll(async () => {
    if (README_SHOTS) mkdirSync(README_SHOTS, { recursive: true });
    const batch = await api('POST', `/v1/projects/${ui.projectId}/runs/batch`, {
      runs: Object.entries(QUESTIONS).map(([id, [question, answer]], i) => ({
        id,
        name: 'chat gpt-4o',
        kind: 'llm',
        status: 'succeeded',
        model: 'gpt-4o',
        tags: i < 2 ? ['support'] : ['account'],
        startTime: at(i * 10),
        endTime: at(i * 10 + 2),
        inputs: { messages: [{ role: 'user', content: question }] },
        outputs: { content: answer },
      })),
    });
    expect(batch.status).toBe(200);
    const tone = await api('POST', '/v1/score-configs', { name: 'tone', dataType: 'categorical', categories: ['friendly', 'neutral', 'rude'] });
    const correct = await api('POST', '/v1/score-configs', { name: 'correct', dataType: 'boolean' });
    expect([tone.status, correct.status]).toEqual([201, 201]);
    const queue = await api('POST', `/v1/projects/${ui.projectId}/annotation-queues`, {
      name: 'Support answers',
      description: 'Is the answer right, and kind?',
      target: 'run',
      scoreConfigIds: [tone.body.id, correct.body.id],
    });
    expect(queue.status).toBe(201);
    queueId = queue.body.id;
    const added = await api('POST', queueApi('/items'), { ids: ['refund-llm', 'invoice-llm'] });
    expect(added.body).toEqual({ added: 2, existing: 0, examined: 2 });
  }, 120_000);

  step('lists the queue with its progress in the project', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces`);
    await ui.page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Annotation queues' }).click();
    const table = ui.page.getByRole('table', { name: 'Annotation queues, newest first' });
    await expect.poll(async () => table.textContent(), { timeout: ACTION_MS }).toMatch(/Support answers.*Runs.*0 of 2 done/s);
    await table.getByRole('button', { name: 'Review Support answers' }).click();
    await ui.page.waitForURL(`**/annotation-queues/${queueId}/review`);
  });

  step('review a queue item with the keyboard', async () => {
    const form = ui.page.getByRole('form', { name: 'Scores of this item' });
    await form.waitFor();
    first = (await shownTarget().textContent())!;
    expect(Object.keys(QUESTIONS)).toContain(first);
    second = first === 'refund-llm' ? 'invoice-llm' : 'refund-llm';
    // The run's conversation, as text.
    await expect.poll(async () => ui.page.getByRole('list', { name: 'Input' }).textContent(), { timeout: ACTION_MS }).toContain(QUESTIONS[first]![0]);
    await expect
      .poll(async () => ui.page.getByRole('list', { name: 'Output' }).textContent(), { timeout: ACTION_MS })
      .toContain(first === 'refund-llm' ? 'Monday' : 'attached');
    await expect.poll(async () => ui.page.locator('.sl-aq-lease').textContent(), { timeout: ACTION_MS }).toMatch(/Held for you for (10:00|9:\d\d) more/);

    // Keys only: 1 chooses the first category of the first score not set (tone: friendly), 2 the second
    // option of the next (correct: false), 1 again nothing more (every choice is set), Enter completes.
    await ui.page.keyboard.press('?');
    await ui.page.getByRole('heading', { name: 'Keyboard shortcuts' }).waitFor();
    await ui.page.keyboard.press('?');
    await ui.page.keyboard.press('1');
    await ui.page.keyboard.press('2');
    await expect.poll(async () => form.getByRole('radio', { checked: true }).allTextContents(), { timeout: ACTION_MS }).toEqual(['1friendly', '2false']);
    // j moves to the first score, and 2 then chooses there (tone: neutral).
    await ui.page.keyboard.press('j');
    await ui.page.keyboard.press('2');
    await expect.poll(async () => form.getByRole('radio', { checked: true }).allTextContents(), { timeout: ACTION_MS }).toEqual(['2neutral', '2false']);
    if (README_SHOTS) await screenshot(ui.page, join(README_SHOTS, 'review.png'));
    await ui.page.keyboard.press('Enter');

    // The screen moves to the second item.
    await expect.poll(async () => shownTarget().textContent(), { timeout: ACTION_MS }).toBe(second);
    await expect.poll(async () => ui.page.getByRole('list', { name: 'Input' }).textContent(), { timeout: ACTION_MS }).toContain(QUESTIONS[second]![0]);
    await expect.poll(async () => form.getByRole('radio', { checked: true }).count(), { timeout: ACTION_MS }).toBe(0);

    const completed = await api<{ items: Item[] }>('GET', queueApi('/items?status=completed'));
    expect(completed.body.items.map((item) => item.targetId)).toEqual([first]);
    const scores = await api<{ items: Score[] }>('GET', `/v1/projects/${ui.projectId}/scores?queueId=${queueId}`);
    expect(
      scores.body.items
        .map((s) => ({ name: s.name, value: s.value, source: s.source, queueId: s.queueId, runId: s.runId }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: 'correct', value: false, source: 'annotation', queueId, runId: first },
      { name: 'tone', value: 'neutral', source: 'annotation', queueId, runId: first },
    ]);

    // s skips the second: the queue is done, with its exact counts.
    await ui.page.keyboard.press('s');
    await ui.page.getByRole('heading', { name: 'This queue is done' }).waitFor();
    await expect
      .poll(async () => ui.page.getByRole('region', { name: 'This queue is done' }).textContent(), { timeout: ACTION_MS })
      .toContain('2 of 2 done · Completed 1 · Skipped 1 · In progress 0 · Pending 0');
    const queue = await api('GET', queueApi());
    expect(queue.body.counts).toEqual({ pending: 0, inProgress: 0, completed: 1, skipped: 1 });
    const skipped = await api<{ items: Item[] }>('GET', queueApi('/items?status=skipped'));
    expect(skipped.body.items.map((item) => item.targetId)).toEqual([second]);
  });

  step('says when the item was settled elsewhere meanwhile (a 409) and claims again', async () => {
    expect((await api('POST', queueApi('/items'), { ids: ['address-llm'] })).body).toMatchObject({ added: 1 });
    await ui.page.getByRole('button', { name: 'Check again' }).click();
    await expect.poll(async () => shownTarget().textContent(), { timeout: ACTION_MS }).toBe('address-llm');
    // The same reviewer skips it in another tab (here, the API with their token).
    const item = await api<Item>('POST', queueApi('/claim'));
    expect(item.body.targetId).toBe('address-llm');
    expect((await api('POST', queueApi(`/items/${item.body.id}/skip`))).status).toBe(200);
    // A comment typed, then Ctrl+Enter from the text field completes: refused, the item is lost.
    await ui.page.keyboard.press('1');
    await labelled(ui.page.getByRole('form', { name: 'Scores of this item' }), 'Comment').fill('polite');
    await ui.page.keyboard.press('Control+Enter');
    await ui.page.getByRole('heading', { name: 'This item is no longer yours' }).waitFor();
    await ui.page.getByRole('button', { name: 'Claim again' }).click();
    await expect
      .poll(async () => ui.page.getByRole('region', { name: 'This queue is done' }).textContent(), { timeout: ACTION_MS })
      .toContain('3 of 3 done · Completed 1 · Skipped 2 · In progress 0 · Pending 0');
    const scores = await api<{ items: Score[] }>('GET', `/v1/projects/${ui.projectId}/scores?queueId=${queueId}`);
    expect(scores.body.items).toHaveLength(2);
  });

  step('adds runs to a queue by filter on its page, and shows its items', async () => {
    await ui.page.getByRole('link', { name: 'Back to the queue' }).click();
    const form = ui.page.getByRole('form', { name: 'Add items' });
    await form.waitFor();
    await labelled(form, 'Tags').fill('support');
    await form.getByRole('button', { name: 'Add to queue' }).click();
    await expect.poll(async () => form.getByRole('status').textContent(), { timeout: ACTION_MS }).toBe('Added 0 · 2 already in the queue · 2 looked at');
    await labelled(form, 'Tags').fill('');
    // A percentage out of range is said under its field; the server's faults are named by the form's labels.
    await labelled(form, 'Sample (%)').fill('250');
    await form.getByRole('button', { name: 'Add to queue' }).click();
    await expect.poll(async () => form.getByRole('alert').textContent(), { timeout: ACTION_MS }).toBe('More than 0 and at most 100.');
    await labelled(form, 'Sample (%)').fill('50');
    await labelled(form, 'At most').fill('5000');
    await form.getByRole('button', { name: 'Add to queue' }).click();
    await expect.poll(async () => form.getByRole('alert').textContent(), { timeout: ACTION_MS }).toMatch(/At most: Must be <= 1000/);
    const items = ui.page.getByRole('table', { name: 'Items of the queue, newest first' });
    await expect.poll(async () => items.locator('tbody tr').count(), { timeout: ACTION_MS }).toBe(3);
    await labelled(ui.page.getByRole('form', { name: 'Filter items' }), 'Status').selectOption('completed');
    await expect
      .poll(async () => items.locator('tbody tr').allTextContents(), { timeout: ACTION_MS })
      .toEqual([expect.stringMatching(new RegExp(`^${first}completedyou`))]);
  });

  step('adds a run from its page and a trace from its page; a trace is reviewed by its root run, c completing', async () => {
    const second = await api('POST', `/v1/projects/${ui.projectId}/annotation-queues`, { name: 'Second look', target: 'run' });
    const traceQueue = await api('POST', `/v1/projects/${ui.projectId}/annotation-queues`, {
      name: 'Whole conversations',
      target: 'trace',
      scoreConfigIds: (await api('GET', queueApi())).body.scoreConfigIds.slice(1),
    });
    expect([second.status, traceQueue.status]).toEqual([201, 201]);

    const addFrom = async (path: string, noun: string, queue: string) => {
      await ui.page.goto(path);
      await ui.page.getByRole('button', { name: 'Add to queue' }).first().click();
      const form = ui.page.getByRole('form', { name: `Add this ${noun} to a queue` });
      await expect.poll(async () => labelled(form, 'Queue').locator('option').allTextContents(), { timeout: ACTION_MS }).toContain(queue);
      await labelled(form, 'Queue').selectOption({ label: queue });
      await form.getByRole('button', { name: 'Add to queue' }).click();
      await expect.poll(async () => ui.page.getByRole('dialog').getByRole('status').textContent(), { timeout: ACTION_MS }).toBe(`Added to ${queue}.`);
    };
    await addFrom(`/projects/${ui.projectId}/runs/address-llm`, 'run', 'Second look');
    const run = await api('GET', `/v1/projects/${ui.projectId}/runs/refund-llm`);
    await addFrom(`/projects/${ui.projectId}/traces/${run.body.traceId}`, 'trace', 'Whole conversations');
    const items = await api<{ items: Item[] }>('GET', `/v1/projects/${ui.projectId}/annotation-queues/${second.body.id}/items`);
    expect(items.body.items.map((item) => item.targetId)).toEqual(['address-llm']);

    await ui.page.getByRole('dialog').getByRole('link', { name: 'Open Whole conversations' }).click();
    await ui.page.getByRole('button', { name: 'Review' }).click();
    await expect.poll(async () => shownTarget().textContent(), { timeout: ACTION_MS }).toBe(run.body.traceId);
    await expect.poll(async () => ui.page.getByRole('list', { name: 'Input' }).textContent(), { timeout: ACTION_MS }).toContain('Where is my refund?');
    await expect.poll(async () => ui.page.getByRole('region', { name: 'Error' }).count()).toBe(0);
    await ui.page.getByText('shown by its root run').waitFor();
    await ui.page.keyboard.press('1');
    await ui.page.keyboard.press('c');
    await ui.page.getByRole('heading', { name: 'This queue is done' }).waitFor();
    const scores = await api<{ items: (Score & { traceId: string | null })[] }>('GET', `/v1/projects/${ui.projectId}/scores?queueId=${traceQueue.body.id}`);
    expect(scores.body.items.map((s) => [s.name, s.value, s.source, s.traceId, s.runId])).toEqual([['correct', true, 'annotation', run.body.traceId, null]]);
  });

  step('works at phone width: no page scrolls sideways', async () => {
    const phone = await api('POST', `/v1/projects/${ui.projectId}/annotation-queues`, {
      name: 'On the go',
      scoreConfigIds: (await api('GET', queueApi())).body.scoreConfigIds,
    });
    // A model call with a long code line and a long link: read on the review screen without sideways scrolling.
    const longLine = `select ${Array.from({ length: 40 }, (_, i) => `column_${i}`).join(', ')} from invoices`;
    const longLink = `https://docs.example.test/${'invoices/'.repeat(30)}policy`;
    const long = {
      id: 'phone-long-llm',
      name: 'long answer',
      kind: 'llm',
      status: 'succeeded',
      startTime: new Date(Date.now() - 60_000).toISOString(),
      endTime: new Date().toISOString(),
      inputs: { messages: [{ role: 'user', content: `What does ${longLink} say?` }] },
      outputs: { messages: [{ role: 'assistant', content: `Run this:\n\n\`\`\`sql\n${longLine}\n\`\`\`` }] },
    };
    expect((await api('POST', `/v1/projects/${ui.projectId}/runs/batch`, { runs: [long] })).status).toBe(200);
    expect((await api('POST', `/v1/projects/${ui.projectId}/annotation-queues/${phone.body.id}/items`, { ids: ['phone-long-llm'] })).status).toBe(200);
    await ui.page.setViewportSize({ width: 390, height: 844 });
    try {
      const pages: [string, () => Promise<void>][] = [
        [`/projects/${ui.projectId}/annotation-queues`, () => ui.page.getByRole('table').first().waitFor()],
        [`/projects/${ui.projectId}/annotation-queues/${queueId}`, () => ui.page.getByRole('table').first().waitFor()],
        // The review screen with an item held: the conversation above the scores.
        [`/projects/${ui.projectId}/annotation-queues/${phone.body.id}/review`, () => ui.page.getByRole('list', { name: 'Input' }).waitFor()],
      ];
      for (const [path, ready] of pages) {
        await ui.page.goto(path);
        await ui.page.getByRole('heading', { level: 1 }).waitFor();
        await ready();
        // Nothing wider than the screen, nothing clipped: every message and code block ends within it.
        await expectWithinScreen(ui.page, path, 390);
      }
    } finally {
      await ui.page.setViewportSize({ width: 1440, height: 900 });
    }
  });
});
