// What the page benches (bench/runs-page.js, bench/pages.js) share: Debian's chromium driven by
// playwright-core (launched from the bench's process, so on its core), the built-in development identity
// provider the server must run with, signing in through it, and the probe that times a page's first
// content: the frame that first draws what the page is for.
/* global window, document, requestAnimationFrame, MutationObserver -- functions that run in the page */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.BENCH_CHROMIUM || process.env.SIGHTLINE_TEST_CHROMIUM || '/usr/bin/chromium';

/** The built-in development identity provider: no issuer configured, not production (for the servers this process starts). */
export function useDevelopmentIdentity() {
  for (const key of ['SIGHTLINE_OIDC_ISSUER', 'SIGHTLINE_OIDC_CLIENT_ID', 'SIGHTLINE_OIDC_CLIENT_SECRET', 'REDIS_URL']) delete process.env[key];
  if (process.env.NODE_ENV === 'production') process.env.NODE_ENV = 'test';
}

/** Headless chromium, as the benches drive it. */
export function launchChromium(executablePath = CHROMIUM) {
  if (!existsSync(executablePath)) throw new Error(`chromium not found at ${executablePath} (apt-get install chromium, or set BENCH_CHROMIUM)`);
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * Installed in every document before its scripts: the time (performance.now(), from the navigation's
 * start) of the frame that first draws what `initial` names: a selector, or a list of selectors that must
 * all match (a row and an opened panel), or `{ byUrl: [[pattern, selectors], …] }`: those of the first
 * pattern (a regular expression's source) the document's path and query match. `__slMark(next)` starts
 * again for a navigation inside the page (Back), timed from that moment.
 */
export function firstContentProbe(initial) {
  let since = 0;
  const at = window.location.pathname + window.location.search;
  let selectors = [initial.byUrl ? (initial.byUrl.find(([pattern]) => new RegExp(pattern).test(at))?.[1] ?? []) : initial].flat();
  if (selectors.length === 0) return;
  const check = () => {
    if (window.__slFirst !== undefined || !selectors.every((s) => document.querySelector(s))) return;
    window.__slFirst = null;
    requestAnimationFrame(() => (window.__slFirst = performance.now() - since));
  };
  window.__slMark = (next) => {
    since = performance.now();
    selectors = [next].flat();
    window.__slFirst = undefined;
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
}

/** Signs in at the development identity provider (as test/helpers/browser.ts does) and mints a token with the session. */
export async function signIn(page, login) {
  await page.goto('/');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.waitForURL((url) => url.pathname.startsWith('/projects'), { timeout: 30_000 });
  return page.evaluate(async () => {
    const r = await fetch('/v1/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) });
    return (await r.json()).token;
  });
}

/**
 * A new document at `path`, navigated to from the dashboard page before it (as a reload or a typed URL
 * would: the same renderer process, the hashed assets from the browser's cache): ms from the navigation's
 * start until the probe's content is drawn, the first contentful paint, and (`withRequests`) the API
 * requests the page made before that: path without query, ms from its start to its answer's end.
 */
export async function firstContent(page, path, { withRequests = false, timeout = 60_000 } = {}) {
  await page.goto(path, { waitUntil: 'commit', timeout });
  await page.waitForFunction(() => typeof window.__slFirst === 'number', null, { timeout, polling: 50 });
  return page.evaluate(
    (requests) => ({
      first: window.__slFirst,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      requests: requests
        ? performance
            .getEntriesByType('resource')
            .filter((e) => e.startTime < window.__slFirst && new URL(e.name).pathname.startsWith('/v1/'))
            .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime, ms: e.responseEnd - e.startTime, bytes: e.encodedBodySize }))
        : [],
    }),
    withRequests,
  );
}
