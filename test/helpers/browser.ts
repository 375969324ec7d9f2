/**
 * The browser suite's machinery: the real server as a child process (`node bin/sightline.js serve`) on
 * a temporary SQLite database with the built-in development identity provider, and Debian's chromium
 * driven by playwright-core (never a browser download: `.ci/run` installs chromium through apt).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { freePort } from './services.js';

const BIN = new URL('../../bin/sightline.js', import.meta.url).pathname;
export const CHROMIUM = process.env.SIGHTLINE_TEST_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

export interface Server {
  url: string;
  port: number;
  child: ChildProcess;
  logs(): string;
  stop(): Promise<void>;
}

/** Starts `sightline serve` on a free loopback port with a fresh SQLite database; resolves once /readyz is 200. */
export async function startServer(timeoutMs = 45_000): Promise<Server> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'sightline-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The built-in development provider: no issuer, not production. One process: in-memory rate limits.
  for (const key of ['SIGHTLINE_OIDC_ISSUER', 'SIGHTLINE_OIDC_CLIENT_ID', 'SIGHTLINE_OIDC_CLIENT_SECRET', 'REDIS_URL', 'SIGHTLINE_PROBLEM_BASE'])
    delete env[key];
  if (env.NODE_ENV === 'production') env.NODE_ENV = 'test';
  Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'e2e.db')}`, SIGHTLINE_PUBLIC_URL: url, LOG_LEVEL: 'warn' });

  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  child.stdout!.on('data', (d) => (logs += d));
  child.stderr!.on('data', (d) => (logs += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the server exited with ${child.exitCode}:\n${logs}`);
    }
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, port, child, logs: () => logs, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`the server did not become ready in ${timeoutMs} ms:\n${logs}`);
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 30_000,
  });
}

/**
 * The page at `path` fits a screen `width` px wide: the document scrolls no more than `slack` px sideways,
 * and every message of a conversation, and every code block in one, ends within the screen (a long line
 * scrolls inside its block rather than being clipped or widening the page).
 */
export async function expectWithinScreen(page: Page, path: string, width: number, slack = 0): Promise<void> {
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow, `${path} is ${overflow}px wider than the screen`).toBeLessThanOrEqual(slack);
  const past = await page
    .locator('.sl-msg, .sl-msg pre')
    .evaluateAll(
      (els, screen) => els.map((el) => [el.className, Math.round(el.getBoundingClientRect().right)] as const).filter(([, right]) => right > screen + 1),
      width,
    );
  expect(past, `${path}: past the screen's edge`).toEqual([]);
}

/** Saves a screenshot (viewport, or the full page) under `dir`, creating it. */
export async function screenshot(page: Page, path: string, fullPage = false): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage, animations: 'disabled' });
}

/**
 * A suite's steps: each a test that saves a screenshot under `dir` after it, and after a failure one
 * marked FAILED, with the server's log tail added to the error. `state` gives the page and dashboard
 * once `beforeAll` has opened them.
 */
export function stepsIn(dir: string, state: () => { page: Page; dashboard: Dashboard | undefined }, timeoutMs = 25_000) {
  return (name: string, fn: () => Promise<void>) =>
    it(
      name,
      async () => {
        const { page, dashboard } = state();
        const file = join(dir, name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
        try {
          await fn();
          await screenshot(page, `${file}.png`, true).catch(() => {});
        } catch (error) {
          await screenshot(page, `${file}-FAILED.png`, true).catch(() => {});
          if (error instanceof Error) error.message += `\n--- server log (tail) ---\n${dashboard?.server.logs().slice(-3_000).trim() ?? ''}`;
          throw error;
        }
      },
      timeoutMs,
    );
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The form control labelled `text`: the exact label, or one whose label starts with it (a wrapping
 * label's text runs on into a hint, or into a select's option texts: "StatusAnyfailed"). Inside `scope`
 * (an open dialog, say).
 */
export function labelled(scope: Page | Locator, text: string): Locator {
  return scope
    .getByLabel(text, { exact: true })
    .or(scope.getByLabel(new RegExp(`^\\s*${escape(text)}`, 'i')))
    .first();
}

/** The open dialog when there is one (forms often live in a modal), else the page. */
export async function formScope(page: Page): Promise<Page | Locator> {
  const dialog = page.getByRole('dialog');
  try {
    await dialog.first().waitFor({ state: 'visible', timeout: 1_500 });
    return dialog.first();
  } catch {
    return page;
  }
}

/** A JSON API call with a bearer token, as any script would make it. */
export async function apiCall<T = any>(base: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** What a browser suite drives: the real server on a fresh database, chromium, and one page on the server. */
export interface Dashboard {
  server: Server;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Closes the page's context and the browser, and stops the server. */
  close(): Promise<void>;
}

/**
 * Builds what is stale (dist/ and dist/web), starts the server and chromium, and opens a page on the
 * server's URL at a desktop size, en-US in UTC, light, each action bounded by `actionMs`.
 */
export async function openDashboard(actionMs: number): Promise<Dashboard> {
  ensureBuilt();
  const server = await startServer();
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      baseURL: server.url,
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
    });
    context.setDefaultTimeout(actionMs);
    context.setDefaultNavigationTimeout(15_000);
    const page = await context.newPage();
    const close = async () => {
      await context.close().catch(() => {});
      await browser!.close().catch(() => {});
      await server.stop();
    };
    return { server, browser, context, page, close };
  } catch (error) {
    await browser?.close().catch(() => {});
    await server.stop();
    throw error;
  }
}

/**
 * How long the sign-in's steps may take: a server's first pages (its dashboard, the identity provider's
 * login form) on a machine whose every core runs other suites took over 8 s in CI. Generous, and bounded.
 */
const SIGN_IN_MS = 45_000;

/** Signs in at the development identity provider with any password (passing a consent screen if one is shown); resolves on the projects page. */
export async function signIn(page: Page, login: string): Promise<void> {
  await page.goto('/', { timeout: SIGN_IN_MS });
  await page.getByRole('link', { name: 'Sign in' }).click({ timeout: SIGN_IN_MS });
  await page.locator('input[name=login]').fill(login, { timeout: SIGN_IN_MS });
  await page.locator('input[name=password]').fill('any password', { timeout: SIGN_IN_MS });
  await page.locator('button[type=submit]').click({ timeout: SIGN_IN_MS });
  // A consent screen is not expected (a first-party client), but pass it if the provider shows one.
  const consent = page.getByRole('button', { name: 'Continue' });
  const home = () => new URL(page.url()).pathname.startsWith('/projects');
  const deadline = Date.now() + SIGN_IN_MS;
  while (!home() && (await consent.count()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (!home()) await consent.click({ timeout: SIGN_IN_MS });
  await page.waitForURL((url) => url.pathname.startsWith('/projects'), { timeout: SIGN_IN_MS });
}

/** A personal access token minted with the page's session cookie, for the API calls a suite makes. */
export async function mintToken(page: Page, name: string): Promise<string> {
  const minted = await page.evaluate(async (tokenName) => {
    const r = await fetch('/v1/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: tokenName }) });
    return (await r.json()) as { token: string };
  }, name);
  return minted.token;
}

/** How a browser suite opens its dashboard and signs in. */
export interface SignedInOptions {
  /** A first sign-in: the owner of an organization of its own. */
  login: string;
  /** A project of this name, created through the API; none without it. */
  project?: string;
  /** The name of the user's token for the suite's API calls (the login by default). */
  tokenName?: string;
  /** The page's size: 1440×900 by default; `null` keeps `openDashboard`'s 1280×800. */
  viewport?: { width: number; height: number } | null;
  /** Set in this process's environment while the server starts (its child process takes it), then removed. */
  serverEnv?: Record<string, string>;
  /** Playwright's bound on each action: 8 s by default. */
  actionMs?: number;
}

/** `openDashboard`, signed in as `options.login`, with a token of that user's and, when asked, a project. */
export async function openSignedIn(options: SignedInOptions): Promise<{ dashboard: Dashboard; token: string; projectId: string }> {
  const { login, project, tokenName = login, viewport = { width: 1440, height: 900 }, serverEnv = {}, actionMs = 8_000 } = options;
  Object.assign(process.env, serverEnv);
  let dashboard: Dashboard;
  try {
    dashboard = await openDashboard(actionMs);
  } finally {
    for (const key of Object.keys(serverEnv)) delete process.env[key];
  }
  try {
    if (viewport) await dashboard.page.setViewportSize(viewport);
    await signIn(dashboard.page, login);
    const token = await mintToken(dashboard.page, tokenName);
    if (project === undefined) return { dashboard, token, projectId: '' };
    const created = await apiCall<{ id: string }>(dashboard.server.url, token, 'POST', '/v1/projects', { name: project });
    if (created.status !== 201) throw new Error(`creating the project ${project}: ${created.status} ${JSON.stringify(created.body)}`);
    return { dashboard, token, projectId: created.body.id };
  } catch (error) {
    await dashboard.close();
    throw error;
  }
}

/** What a browser suite's steps read: set before they run. */
export interface SignedIn {
  dashboard: Dashboard;
  page: Page;
  token: string;
  /** The project's id ('' without `options.project`). */
  projectId: string;
  /** Registers a step (see `stepsIn`): a test bounded by `stepMs` that leaves a screenshot in `artifacts`. */
  step: (name: string, fn: () => Promise<void>) => void;
}

/**
 * A browser suite, skipped without chromium locally and a failure in CI (where `.ci/run` installs it with
 * apt): before its steps, the `artifacts` folder and `openSignedIn`; after them, everything closed. `body`
 * registers the suite's own hooks (they run after the sign-in) and steps, reading what was opened from `ui`.
 */
export function browserSuite(title: string, options: SignedInOptions & { artifacts: string; stepMs: number }, body: (ui: SignedIn) => void): void {
  const available = chromiumAvailable();
  const ui = { projectId: '', token: '' } as SignedIn;
  ui.step = stepsIn(options.artifacts, () => ({ page: ui.page, dashboard: ui.dashboard }), options.stepMs);
  (available || process.env.CI ? describe : describe.skip)(title, () => {
    beforeAll(async () => {
      if (!available) throw new Error(`chromium (${CHROMIUM}) is required in CI: .ci/run installs it with apt`);
      mkdirSync(options.artifacts, { recursive: true });
      Object.assign(ui, await openSignedIn(options));
      ui.page = ui.dashboard.page;
    }, 120_000);
    afterAll(async () => {
      await ui.dashboard?.close();
    }, 30_000);
    body(ui);
  });
}
