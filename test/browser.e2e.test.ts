/**
 * End to end in a real browser: Debian's chromium, driven by playwright-core, against the real server
 * (`node bin/sightline.js serve`, a fresh SQLite database, the built-in development identity provider).
 * It signs in, creates a project, mints a token in Settings and ingests runs with it through the API,
 * sees them in the runs list with a filter, scrolls it (windowed rows: a few hundred runs loaded, a few
 * dozen in the document; the chart's range is the list's query), opens a run, creates a prompt version and a
 * monitor. Each step saves a screenshot to test-artifacts/screenshots/ (and, with
 * SIGHTLINE_UPDATE_SCREENSHOTS=1, the runs page at 1280×800 to docs/screenshots/runs.png for docs/dashboard.md).
 *
 * The steps share one browser page and run in order; a step whose UI is missing fails on its own, and
 * later steps fall back to the API for what they need so they still say something.
 *
 * Needs chromium (`/usr/bin/chromium`, or SIGHTLINE_TEST_CHROMIUM): skipped locally without it, a
 * failure in CI (`CI` set), where `.ci/run` installs it with apt.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, chromiumAvailable, CHROMIUM, formScope, labelled, mintToken, openDashboard, screenshot, signIn, type Dashboard } from './helpers/browser.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots');
const README_SCREENSHOT = join(ROOT, 'docs', 'screenshots', 'runs.png');
const VIEWPORT = { width: 1280, height: 800 };
/** Playwright's per-action bound: every wait below ends within it. */
const ACTION_MS = 8_000;
/** All the steps together (the build, the server's start and the browser's launch come before): a hard bound. */
const STEPS_BUDGET_MS = 110_000;

const available = chromiumAvailable();
const suite = available || process.env.CI ? describe : describe.skip;

const LOGIN = 'e2e-user@example.test';
const PROJECT = 'checkout-assistant';
const PROMPT = 'e2e-support-reply';
const MONITOR = 'e2e error rate';
const RUNS = 30;
/** Which of the 28 plain runs fail (the parent and child succeed). */
const FAILED_AT = new Set([3, 7, 11, 15, 19, 23]);
const FAILED = FAILED_AT.size;

/** 30 runs over the last half hour: 6 failed, four models, a parent (newest) with a child, and a distinctive oldest run (out of view until the list scrolls). */
function sampleRuns(now: number) {
  const models = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet', 'llama-3.1-70b'];
  const names = ['chat-completion', 'summarize-ticket', 'classify-intent'];
  const runs: Record<string, unknown>[] = [];
  for (let i = 0; i < RUNS - 2; i++) {
    const start = now - 30 * 60_000 + i * 60_000;
    const failed = FAILED_AT.has(i);
    const latency = 300 + ((i * 137) % 2400);
    const promptTokens = 200 + i * 11;
    const completionTokens = failed ? 0 : 40 + i * 3;
    runs.push({
      id: `e2e-run-${String(i).padStart(2, '0')}`,
      name: i === 0 ? 'oldest-call' : names[i % names.length],
      kind: 'llm',
      status: failed ? 'failed' : 'succeeded',
      startTime: new Date(start).toISOString(),
      endTime: new Date(start + latency).toISOString(),
      model: models[i % models.length],
      inputs: { messages: [{ role: 'user', content: `Question number ${i}` }] },
      outputs: failed ? null : { content: `Answer number ${i}` },
      error: failed ? 'RateLimitError: 429 from the provider' : null,
      usage: { promptTokens, completionTokens },
      cost: Math.round((promptTokens + completionTokens) * 0.000002 * 1e6) / 1e6,
      tags: ['e2e', i % 2 === 0 ? 'production' : 'staging'],
      metadata: { env: i % 2 === 0 ? 'production' : 'staging' },
    });
  }
  const parentStart = now - 60_000;
  runs.push(
    {
      id: 'e2e-child',
      parentRunId: 'e2e-parent', // arrives before its parent in the same batch
      name: 'retrieve-docs',
      kind: 'retriever',
      status: 'succeeded',
      startTime: new Date(parentStart + 50).toISOString(),
      endTime: new Date(parentStart + 450).toISOString(),
      inputs: { query: 'rotate a token' },
      outputs: { documents: ['README#token-lifecycle'] },
      tags: ['e2e'],
    },
    {
      id: 'e2e-parent',
      name: 'support-agent',
      kind: 'chain',
      status: 'succeeded',
      startTime: new Date(parentStart).toISOString(),
      endTime: new Date(parentStart + 1_900).toISOString(),
      inputs: { question: 'How do I rotate a token?' },
      outputs: { answer: 'POST /v1/tokens/{id}/rotate' },
      model: 'gpt-4o',
      usage: { promptTokens: 512, completionTokens: 64 },
      cost: 0.0021,
      tags: ['e2e', 'production'],
      metadata: { env: 'production' },
    },
  );
  return runs;
}

suite('the dashboard in a real browser (chromium + playwright-core)', () => {
  let dashboard: Dashboard | undefined;
  let page: Page;
  let shot = 0;
  let deadline = Number.POSITIVE_INFINITY;
  let token: string | undefined;
  let projectId: string | undefined;
  const cursorRequests: string[] = [];
  /** Every runs-list request the page made (path and query). */
  const listRequests: URL[] = [];

  const base = () => dashboard!.server.url;
  const snap = async (name: string) => {
    if (!page) return;
    await screenshot(page, join(ARTIFACTS, `${String(++shot).padStart(2, '0')}-${name}.png`), true).catch(() => {});
  };
  /** A step: bounded by the suite's budget; a screenshot after it, and on failure too (with the server's log tail in the error). */
  const step = (name: string, fn: () => Promise<void>, timeout = 20_000) =>
    it(
      name,
      async () => {
        try {
          const left = Math.min(timeout - 1_000, deadline - Date.now());
          if (left <= 0) throw new Error(`the browser suite's ${STEPS_BUDGET_MS / 1000} s budget is spent`);
          let timer: NodeJS.Timeout | undefined;
          const expired = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`step out of time (${Math.round(left / 1000)} s left of the suite's budget)`)), left);
          });
          await Promise.race([fn(), expired]).finally(() => clearTimeout(timer));
          await snap(name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
        } catch (error) {
          await snap(`${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-FAILED`);
          const tail = dashboard?.server.logs().slice(-3_000).trim();
          if (error instanceof Error && tail) error.message += `\n--- server log (tail) ---\n${tail}`;
          throw error;
        }
      },
      timeout,
    );

  /** The token minted in the UI, or (when that step failed) one minted with the session cookie, so later steps can go on. */
  const ensureToken = async (): Promise<string> => {
    token ??= await mintToken(page, 'e2e-fallback');
    return token;
  };
  /** The project created in the UI, or (when that step failed) the same one made through the API. */
  const ensureProject = async (): Promise<string> => {
    if (projectId) return projectId;
    const t = await ensureToken();
    const found = await apiCall<{ items: { id: string; name: string }[] }>(base(), t, 'GET', `/v1/projects?name=${encodeURIComponent(PROJECT)}`);
    projectId =
      found.body.items.find((p) => p.name === PROJECT)?.id ?? (await apiCall<{ id: string }>(base(), t, 'POST', '/v1/projects', { name: PROJECT })).body.id;
    return projectId;
  };
  const runsTable = () => page.getByRole('table', { name: 'Runs' });
  /** The runs' rows in the document (the windowed ones; the heading row is outside the row group). */
  const runRows = () =>
    runsTable()
      .getByRole('rowgroup', { name: /: rows$/ })
      .getByRole('row');
  /** How many runs the list has loaded (its aria-rowcount), whether or not their rows are in the document. */
  const loadedRuns = async () =>
    Number(
      (await runsTable()
        .getAttribute('aria-rowcount', { timeout: 1_000 })
        .catch(() => null)) ?? -1,
    );
  /** Scrolls the page (the list scrolls with it: it has no box of its own) to its top or its end. */
  const scrollRuns = (to: 'top' | 'end') => page.evaluate(to === 'end' ? 'window.scrollTo(0, document.documentElement.scrollHeight)' : 'window.scrollTo(0, 0)');
  /** Closes whatever dialog a step left open (a created-once secret, say): Escape closes a native <dialog>. */
  const closeDialogs = async () => {
    for (let i = 0; i < 3 && (await page.getByRole('dialog').count()) > 0; i++) {
      await page.keyboard.press('Escape');
      await page
        .getByRole('dialog')
        .first()
        .waitFor({ state: 'hidden', timeout: 2_000 })
        .catch(() => {});
    }
  };

  beforeAll(async () => {
    if (!available) throw new Error(`chromium (${CHROMIUM}) is required in CI: .ci/run installs it with apt`);
    rmSync(ARTIFACTS, { recursive: true, force: true }); // this run's screenshots only
    mkdirSync(ARTIFACTS, { recursive: true });
    dashboard = await openDashboard(ACTION_MS); // builds dist/ and dist/web first when they are stale
    page = dashboard.page;
    deadline = Date.now() + STEPS_BUDGET_MS;
    page.on('request', (request) => {
      const url = request.url();
      if (/\/v1\/projects\/[^/]+\/runs\?/.test(url) && /[?&]cursor=/.test(url)) cursorRequests.push(url);
      if (/\/v1\/projects\/[^/]+\/runs\?/.test(url)) listRequests.push(new URL(url));
    });
  }, 120_000);

  afterAll(async () => {
    await dashboard?.close();
  }, 30_000);

  step('signs in through the development identity provider', async () => {
    await signIn(page, LOGIN);
    const banner = page.getByRole('banner');
    await banner.getByText("e2e-user's organization").waitFor();
    expect(await banner.textContent()).toContain('owner');
  });

  step('loads the first page with at most 250 KB of compressed JavaScript: each page and the Markdown renderer load when first needed', async () => {
    const fresh = await page.context().newPage();
    const scripts = new Map<string, number>();
    fresh.on('response', async (response) => {
      if (!response.url().endsWith('.js')) return;
      scripts.set(new URL(response.url()).pathname, gzipSync(await response.body()).length);
    });
    try {
      await fresh.goto(`${dashboard!.server.url}/projects`);
      await fresh.getByRole('heading', { level: 1, name: 'Projects' }).waitFor({ timeout: ACTION_MS });
      await fresh.waitForLoadState('networkidle');
      const total = [...scripts.values()].reduce((a, b) => a + b, 0);
      expect(total, JSON.stringify([...scripts])).toBeLessThanOrEqual(250_000);
      // Not loaded: another page's chunk, the Markdown renderer.
      expect([...scripts.keys()].filter((path) => /\/(trace|runs|markdown-render|settings)-[\w-]+\.js$/.test(path))).toEqual([]);
      // Another page brings its own chunk when it is first opened.
      const before = scripts.size;
      await fresh.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
      await fresh.getByRole('heading', { level: 1, name: 'Settings' }).waitFor({ timeout: ACTION_MS });
      await expect.poll(() => [...scripts.keys()].filter((path) => /\/settings-[\w-]+\.js$/.test(path)).length, { timeout: ACTION_MS }).toBe(1);
      expect(scripts.size).toBeGreaterThan(before);
    } finally {
      await fresh.close();
    }
  });

  step('creates a project through the UI', async () => {
    await page.getByRole('button', { name: 'New project' }).first().click();
    const form = await formScope(page);
    await labelled(form, 'Name').fill(PROJECT);
    await form.getByRole('button', { name: 'Create project' }).click();
    // The page may open the new project or list it: either way its id is in a URL.
    await expect
      .poll(
        async () => {
          const fromUrl = /\/projects\/(prj_[A-Za-z0-9]+)/.exec(page.url())?.[1];
          if (fromUrl) return fromUrl;
          const link = page.getByRole('link', { name: PROJECT, exact: true }).first();
          const href = (await link.count()) > 0 ? await link.getAttribute('href') : null;
          return href ? (/\/projects\/(prj_[A-Za-z0-9]+)/.exec(href)?.[1] ?? '') : '';
        },
        { timeout: ACTION_MS, interval: 200 },
      )
      .toMatch(/^prj_/);
    projectId =
      /\/projects\/(prj_[A-Za-z0-9]+)/.exec(page.url())?.[1] ??
      /\/projects\/(prj_[A-Za-z0-9]+)/.exec((await page.getByRole('link', { name: PROJECT, exact: true }).first().getAttribute('href')) ?? '')?.[1];
    expect(projectId).toMatch(/^prj_/);
  });

  step('mints a token in Settings, shown once, and uses it with fetch', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    for (const heading of ['Members', 'Invitations', 'Allowed origins']) await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    await labelled(page, 'Token name').fill('e2e ingest');
    await labelled(page, 'Lifetime (days)').fill('7');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('new-token');
    await shown.waitFor();
    expect(await page.locator('.secret').textContent()).toContain('Copy it now: it will not be shown again');
    const minted = (await shown.textContent())!.trim();
    expect(minted).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    // The list shows it as active, expiring in 7 days.
    const row = page.getByRole('row').filter({ hasText: 'e2e ingest' }).first();
    await row.getByText('active').waitFor();
    const me = await apiCall<{ token: { kind: string }; user: { email: string } }>(base(), minted, 'GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.token.kind).toBe('personal_access_token');
    expect(me.body.user.email).toBe(LOGIN);
    token = minted;
  });

  step(
    'ingests 30 runs with the token and sees them in the runs list',
    async () => {
      const id = await ensureProject();
      const t = await ensureToken();
      const batch = await apiCall<{ results: { status: string; problem?: unknown }[] }>(base(), t, 'POST', `/v1/projects/${id}/runs/batch`, {
        runs: sampleRuns(Date.now()),
      });
      expect(batch.status).toBe(200);
      expect(batch.body.results.filter((r) => r.status === 'created')).toHaveLength(RUNS);

      await page.goto(`/projects/${id}/runs`);
      await expect.poll(loadedRuns, { timeout: ACTION_MS, interval: 200 }).toBe(RUNS);
      await page.getByRole('link', { name: 'support-agent', exact: true }).first().waitFor();
      // Each row previews the run's input and output; the newest is the parent's child, marked as one.
      await expect(runRows().first().textContent()).resolves.toMatch(/child run:\s*retrieve-docs.*rotate a token.*README#token-lifecycle/s);
      await expect(runRows().filter({ hasText: 'support-agent' }).textContent()).resolves.toMatch(
        /How do I rotate a token\?.*POST \/v1\/tokens\/\{id\}\/rotate/s,
      );
      await page.waitForLoadState('networkidle').catch(() => {});
      // The chart and the list at the top of the view (the picture of the page in docs/dashboard.md).
      const chart = (await page.getByRole('region', { name: 'Runs and errors' }).boundingBox())!;
      await page.evaluate(`window.scrollBy(0, ${Math.round(chart.y) - 72})`); // below the sticky bar
      mkdirSync(join(ROOT, 'docs', 'screenshots'), { recursive: true });
      if (process.env.SIGHTLINE_UPDATE_SCREENSHOTS === '1') await screenshot(page, README_SCREENSHOT);
    },
    25_000,
  );

  step('leaves the runs list room to read each run’s input and output, at 1440, 1280 and 1024 px wide', async () => {
    await page.goto(`/projects/${await ensureProject()}/runs`);
    await expect.poll(loadedRuns, { timeout: ACTION_MS, interval: 200 }).toBe(RUNS);
    const widths: Record<number, number> = {};
    const layouts: Record<number, string> = {};
    try {
      for (const width of [1440, 1280, 1024]) {
        await page.setViewportSize({ width, height: 900 });
        const io = runRows().first().locator('.sl-tr-io');
        await io.waitFor({ state: 'attached' });
        widths[width] = Math.round((await io.boundingBox())!.width);
        layouts[width] = await runsTable()
          .getByRole('columnheader')
          .evaluateAll((cells) => cells.map((c) => `${c.textContent}:${Math.round(c.getBoundingClientRect().width)}`).join(' '));
        // The row fits its list: no cell pushed past the list's right edge, no sideways scroll.
        const overflow = await runsTable().evaluate((table) => {
          const right = table.getBoundingClientRect().right;
          return [...table.querySelectorAll('[role="row"] > *')].some((cell) => cell.getBoundingClientRect().right > right + 1);
        });
        expect(overflow, `a cell past the list's edge at ${width} px: ${JSON.stringify(layouts)}`).toBe(false);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(1);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    const why = JSON.stringify(layouts, null, 1);
    // (Before the name and its start, and the model and its kind, shared cells: 21 px at 1440 and 1280, none at 1024.)
    expect(widths[1440], why).toBeGreaterThanOrEqual(260);
    expect(widths[1280], why).toBeGreaterThanOrEqual(260);
    expect(widths[1024], why).toBeGreaterThanOrEqual(300);
  });

  step('filters the runs by status', async () => {
    // The filters start folded into their heading (and the chips of those in force): unfold them.
    const toggle = page.locator('button[aria-controls="run-filters"]');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    await labelled(page, 'Status').selectOption('failed');
    await expect
      .poll(
        async () => {
          const texts = await runRows().allTextContents();
          return texts.length > 0 && texts.every((text) => text.includes('failed')) ? texts.length : -texts.length;
        },
        { timeout: ACTION_MS, interval: 200 },
      )
      .toBe(FAILED);
    expect(await loadedRuns()).toBe(FAILED);
  });

  step('scrolls the list to its oldest run, the newest leaving the document', async () => {
    await page.goto(`/projects/${await ensureProject()}/runs`);
    await expect.poll(loadedRuns, { timeout: ACTION_MS, interval: 200 }).toBe(RUNS);
    const oldest = page.getByRole('link', { name: 'oldest-call', exact: true });
    expect(await oldest.count()).toBe(0); // below the window's view: not in the document yet
    await scrollRuns('end');
    await oldest.waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'support-agent', exact: true }).count(), { timeout: ACTION_MS, interval: 100 }).toBe(0);
    expect(await runRows().count()).toBeLessThan(RUNS);
  });

  step('opens a run: its inputs and its trace', async () => {
    await scrollRuns('top');
    await page.getByRole('link', { name: 'support-agent', exact: true }).first().click();
    await page.waitForURL(/\/runs\/e2e-parent$/);
    await page.getByRole('heading', { name: 'Inputs' }).first().waitFor();
    await page.getByText('How do I rotate a token?').first().waitFor();
    // The trace tree shows the child run.
    await page.getByText('retrieve-docs').first().waitFor();
  });

  step(
    "keeps the document small with 300 runs loaded, and the chart's range is the list's query",
    async () => {
      // A project of its own: 100 runs in the last half hour, 200 more between 2 and 20 hours ago.
      const t = await ensureToken();
      const other = (await apiCall<{ id: string }>(base(), t, 'POST', '/v1/projects', { name: 'e2e-windowed' })).body.id;
      const now = Date.now();
      const at = (i: number) => (i < 100 ? now - 60_000 - i * 15_000 : now - 2 * 3_600_000 - (i - 100) * 324_000);
      const many = Array.from({ length: 300 }, (_, i) => ({
        name: `windowed-${i}`,
        kind: 'llm',
        status: 'succeeded',
        startTime: new Date(at(i)).toISOString(),
        endTime: new Date(at(i) + 500).toISOString(),
        inputs: { messages: [{ role: 'user', content: `Windowed question ${i}` }] },
        outputs: { content: `Windowed answer ${i}` },
      }));
      const batch = await apiCall<{ results: { status: string }[] }>(base(), t, 'POST', `/v1/projects/${other}/runs/batch`, { runs: many });
      expect(batch.body.results.filter((r) => r.status === 'created')).toHaveLength(300);
      const requestsOf = () => listRequests.filter((url) => url.pathname === `/v1/projects/${other}/runs`);

      await page.goto(`/projects/${other}/runs`);
      // Scroll the page to its end until every run of the last 24 hours is loaded (pages of 100, by cursor).
      await expect
        .poll(
          async () => {
            if ((await runsTable().count()) > 0) await scrollRuns('end');
            return loadedRuns();
          },
          { timeout: ACTION_MS, interval: 250 },
        )
        .toBe(300);
      expect(requestsOf().filter((url) => url.searchParams.has('cursor')).length).toBeGreaterThanOrEqual(2);
      const rendered = await runRows().count();
      expect(rendered, 'rows in the document').toBeGreaterThan(0);
      expect(rendered, 'rows in the document').toBeLessThan(100);
      await page.getByRole('status').filter({ hasText: '300 shown, newest first' }).waitFor();
      // The list asked for the chart's window: the last 24 hours up to the page's "now".
      const first = requestsOf()[0]!;
      const after = Date.parse(first.searchParams.get('startedAfter') ?? '');
      const before = Date.parse(first.searchParams.get('startedBefore') ?? '');
      expect(before - after).toBe(24 * 3_600_000);
      expect(Math.abs(before - Date.now())).toBeLessThan(60_000);

      // Another range: a new query for the list (the last hour), and only the runs in it.
      const seen = requestsOf().length;
      await labelled(page, 'Range').selectOption('1h');
      await page.waitForURL(/[?&]range=1h/);
      await expect.poll(loadedRuns, { timeout: ACTION_MS, interval: 200 }).toBe(100);
      const hour = requestsOf().slice(seen);
      expect(hour.length).toBeGreaterThan(0);
      const span = Date.parse(hour[0]!.searchParams.get('startedBefore')!) - Date.parse(hour[0]!.searchParams.get('startedAfter')!);
      expect(span).toBe(3_600_000);
      expect(await runRows().count()).toBeLessThan(100);
    },
    25_000,
  );

  step('creates a prompt and a new version through the UI', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Prompts' }).click();
    await page.getByRole('button', { name: 'New prompt' }).first().click();
    let form = await formScope(page);
    await labelled(form, 'Name').fill(PROMPT);
    await labelled(form, 'Template').fill('Hello {{customer}}, thanks for writing about {{topic}}.');
    await form.getByRole('button', { name: 'Create prompt' }).click();
    // The page may open the new prompt or list it.
    await page.waitForURL(/\/prompts\/[^/]+$/, { timeout: 3_000 }).catch(async () => {
      await page.getByRole('link', { name: PROMPT, exact: true }).first().click();
      await page.waitForURL(/\/prompts\/[^/]+$/);
    });
    await page.getByRole('button', { name: 'New version' }).first().click();
    form = await formScope(page);
    await labelled(form, 'Template').fill('Hi {{customer}}! About {{topic}}: here is what we found.');
    await form.getByRole('button', { name: 'Create version' }).click();
    const t = await ensureToken();
    await expect
      .poll(async () => (await apiCall<{ latestVersion: number }>(base(), t, 'GET', `/v1/prompts/${PROMPT}`)).body?.latestVersion, {
        timeout: ACTION_MS,
        interval: 250,
      })
      .toBe(2);
    // The page shows the new version.
    await page
      .getByText(/\bv2\b|version 2/i)
      .filter({ visible: true })
      .first()
      .waitFor();
  });

  step('shows a list opened again at once, from what it read before, while it reads it again', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    const listed = page.getByRole('link', { name: PROMPT, exact: true });
    await nav.getByRole('link', { name: 'Prompts' }).click();
    await listed.waitFor();
    await listed.click();
    await page.waitForURL(/\/prompts\/[^/]+$/);
    // The list's next read is held until the end: what the page shows meanwhile can only be what it had.
    const isList = (url: URL) => url.pathname === '/v1/prompts';
    const held: Promise<void>[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    await page.route(isList, (route) => {
      held.push(gate.then(() => route.continue()));
    });
    try {
      await nav.getByRole('link', { name: 'Prompts' }).click();
      await page.getByRole('heading', { level: 1, name: 'Prompts' }).waitFor();
      await listed.waitFor({ timeout: 2_000 });
      await expect.poll(() => held.length, { timeout: ACTION_MS, interval: 50 }).toBe(1); // and it is read again behind
    } finally {
      release();
      await Promise.all(held);
      await page.unroute(isList);
    }
  });

  step('creates a monitor through the UI and sees it listed with a state', async () => {
    const id = await ensureProject();
    await page.goto(`/projects/${id}/runs`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Monitors' }).click();
    await page.waitForURL(/\/monitors$/);
    await page.getByRole('button', { name: 'New monitor' }).first().click();
    const form = await formScope(page);
    await labelled(form, 'Name').fill(MONITOR);
    await labelled(form, 'Metric').selectOption('error_rate');
    await labelled(form, 'Window').selectOption('1h');
    await form.getByRole('button', { name: 'Create monitor' }).click();
    const t = await ensureToken();
    let state = '';
    await expect
      .poll(
        async () => {
          const monitors = await apiCall<{ items: { name: string; state: string }[] }>(base(), t, 'GET', `/v1/projects/${id}/monitors`);
          state = monitors.body.items.find((m) => m.name === MONITOR)?.state ?? '';
          return state;
        },
        { timeout: ACTION_MS, interval: 250 },
      )
      .toMatch(/^(no_data|ok|alerting)$/);
    await closeDialogs();
    if (!page.url().endsWith('/monitors')) await page.goto(`/projects/${id}/monitors`);
    // A table row or a list item: the monitor's name with the state the API reports ("no_data" shown as "no data").
    const item = page.getByRole('row').or(page.getByRole('listitem')).filter({ hasText: MONITOR }).first();
    await item.waitFor();
    await item
      .getByText(new RegExp(`^\\s*${state.replace('_', '[ _]')}\\s*$`, 'i'))
      .first()
      .waitFor();
  });
  step('mints an ingest-only token for one project from the form: it sends runs there, reads nothing, and the list says so', async () => {
    await closeDialogs();
    const id = await ensureProject();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const mint = page.getByRole('form', { name: 'Create an API token' });
    await labelled(mint, 'Token name').fill('e2e exporter');
    await labelled(mint, 'Access').selectOption({ label: 'Ingest-only (send runs and traces)' });
    await labelled(mint, 'Projects').selectOption({ label: `Only ${PROJECT}` });
    await mint.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('new-token');
    await shown.waitFor();
    const exporter = (await shown.textContent())!.trim();
    await page.getByRole('row').filter({ hasText: 'e2e exporter' }).first().getByText(`Ingest-only; ${PROJECT}`).waitFor();
    const sent = await apiCall(base(), exporter, 'POST', `/v1/projects/${id}/runs/batch`, {
      runs: [{ name: 'e2e-exporter', kind: 'chain', startTime: new Date().toISOString() }],
    });
    expect(sent.status).toBe(200);
    const read = await apiCall<{ detail: string }>(base(), exporter, 'GET', `/v1/projects/${id}/runs`);
    expect(read.status).toBe(403);
    expect(read.body.detail).toBe('This token is limited to runs:write; it does not allow runs:read.');
    await page.getByRole('button', { name: 'Done' }).click();
  });
  step('rotates and revokes a token, invites and withdraws, edits allowed origins, keeps the last owner', async () => {
    await closeDialogs();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const mint = page.getByRole('form', { name: 'Create an API token' });
    await labelled(mint, 'Token name').fill('e2e rotate-me');
    await mint.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('new-token');
    await shown.waitFor();
    const first = (await shown.textContent())!.trim();

    // Rotate: a new token, shown once the same way.
    await page.getByRole('button', { name: 'Rotate e2e rotate-me', exact: true }).click();
    await page.getByRole('dialog', { name: 'Rotate token' }).getByRole('button', { name: 'Rotate token' }).click();
    await expect
      .poll(async () => ((await shown.count()) > 0 ? (await shown.textContent())!.trim() : first), { timeout: ACTION_MS, interval: 100 })
      .not.toBe(first);
    const rotated = (await shown.textContent())!.trim();
    // (Not the old token yet: using a rotated-away token counts as theft and revokes the new one too.)
    expect((await apiCall(base(), rotated, 'GET', '/v1/me')).status).toBe(200);

    // Revoke (after a confirmation): refused from then on, and listed as revoked.
    await page.getByRole('button', { name: 'Revoke e2e rotate-me', exact: true }).click();
    await page.getByRole('dialog', { name: 'Revoke token' }).getByRole('button', { name: 'Revoke token' }).click();
    await page.getByRole('dialog', { name: 'Revoke token' }).waitFor({ state: 'hidden' });
    expect((await apiCall(base(), rotated, 'GET', '/v1/me')).status).toBe(401);
    expect((await apiCall(base(), first, 'GET', '/v1/me')).status).toBe(401);
    await shown.waitFor({ state: 'detached' }); // a revoked token's string is no longer shown
    await expect.poll(() => page.getByRole('button', { name: 'Revoke e2e rotate-me', exact: true }).count(), { timeout: ACTION_MS, interval: 100 }).toBe(0);

    // Invitations: invite, listed, withdraw.
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await labelled(invite, 'Email').fill('colleague@example.test');
    await labelled(invite, 'Role').selectOption('viewer');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const invited = page.locator('#invitations').getByRole('row').filter({ hasText: 'colleague@example.test' });
    await invited.first().waitFor();
    expect(await invited.first().textContent()).toContain('viewer');
    await page.getByRole('button', { name: 'Withdraw the invitation of colleague@example.test' }).click();
    await invited.first().waitFor({ state: 'detached' });

    // Allowed origins: add one, a refused one shows the server's problem, remove.
    const origins = page.getByRole('form', { name: 'Add an allowed origin' });
    await labelled(origins, 'Origin').fill('https://app.example.com');
    await origins.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('list', { name: 'Allowed origins' }).getByText('https://app.example.com').waitFor();
    await labelled(origins, 'Origin').fill('http://example.com');
    await origins.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('alert').filter({ hasText: 'Validation failed' }).filter({ hasText: 'Allowed origin 2: Must use https' }).waitFor();
    await page.getByRole('button', { name: 'Remove https://app.example.com' }).click();
    await page.getByText('No custom origins').waitFor();
    expect((await apiCall<{ allowedOrigins: string[] }>(base(), await ensureToken(), 'GET', '/v1/organization')).body.allowedOrigins).toEqual([]);

    // The last owner is offered no demotion and no removal (the server would refuse both with 409): the role is shown, and why.
    await page.getByRole('row').filter({ hasText: LOGIN }).getByText('The last owner').waitFor();
    expect([await page.getByLabel(`Role of ${LOGIN}`).count(), await page.getByRole('button', { name: `Remove ${LOGIN}` }).count()]).toEqual([0, 0]);
    expect((await apiCall<{ role: string }>(base(), await ensureToken(), 'GET', '/v1/me')).body.role).toBe('owner');
  });
  step('reads the audit log in Settings: what was just done, newest first, filtered by action', async () => {
    await closeDialogs();
    // The Settings page the step before made those changes on: its log was read again after each.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const log = page.getByRole('table', { name: 'Audit log' });
    // The invitation withdrawn and the token revoked in the step before, each once.
    await log.getByRole('row').filter({ hasText: 'invitation.deleted' }).filter({ hasText: 'colleague@example.test' }).first().waitFor();
    await expect.poll(() => log.getByRole('row').filter({ hasText: 'token.rotated' }).count(), { timeout: ACTION_MS, interval: 100 }).toBeGreaterThan(0);
    const filters = page.getByRole('group', { name: 'Filter the audit log' });
    await labelled(filters, 'Action').selectOption('token.rotated');
    await expect
      .poll(async () => (await log.getByRole('row').allTextContents()).slice(1).every((text) => text.includes('token.rotated')), {
        timeout: ACTION_MS,
        interval: 100,
      })
      .toBe(true);
    await expect(log.getByRole('row').nth(1).textContent()).resolves.toContain('e2e rotate-me');
    await labelled(filters, 'Action').selectOption('');
  });

  step('lists the built-in prices, and adds, edits and deletes a price of its own', async () => {
    await closeDialogs();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
    const builtin = page.getByRole('table', { name: /Built-in model prices/ });
    await labelled(page, 'Search models').fill('gpt-4o-mini');
    await builtin.getByRole('row').filter({ hasText: 'gpt-4o-mini' }).filter({ hasText: '$0.15' }).first().waitFor();

    await page.getByRole('button', { name: 'New price' }).click();
    let form = await formScope(page);
    await labelled(form, 'Model').fill('e2e-llm');
    await labelled(form, 'Input').fill('1.5');
    await labelled(form, 'Output').fill('6');
    await form.getByRole('button', { name: 'Add price' }).click();
    const own = page.getByRole('table', { name: /organization’s model prices/ });
    await own.getByRole('row').filter({ hasText: 'e2e-llm' }).filter({ hasText: '$6.00' }).first().waitFor();

    await page.getByRole('button', { name: 'Edit the price of e2e-llm' }).click();
    form = await formScope(page);
    await labelled(form, 'Output').fill('7');
    await form.getByRole('button', { name: 'Save' }).click();
    await own.getByRole('row').filter({ hasText: 'e2e-llm' }).filter({ hasText: '$7.00' }).first().waitFor();
    const prices = (await apiCall<{ items: { model: string; outputPrice: number }[] }>(base(), await ensureToken(), 'GET', '/v1/models')).body.items;
    expect(prices.map((p) => [p.model, p.outputPrice])).toEqual([['e2e-llm', 7]]);

    await page.getByRole('button', { name: 'Delete the price of e2e-llm' }).click();
    await page.getByRole('dialog', { name: 'Delete model price' }).getByRole('button', { name: 'Delete price' }).click();
    await own.getByRole('row').filter({ hasText: 'e2e-llm' }).first().waitFor({ state: 'detached' });
  });
  step('works at phone width: no page scrolls sideways', async () => {
    await closeDialogs();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of ['/projects', `/projects/${await ensureProject()}/runs`, '/settings', '/models']) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle').catch(() => {});
        await snap(`phone${path.replace(/[^a-z0-9]+/gi, '-')}`);
        // Wide tables scroll inside their own box; the page itself stays within the screen.
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow, `${path} is ${overflow}px wider than the screen`).toBeLessThanOrEqual(1);
      }
      // The main navigation sits behind the menu button.
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Prompts' }).waitFor();
    } finally {
      await page.setViewportSize(VIEWPORT);
    }
  });
});
