/** Pages, walks and the one malformed-cursor problem, for the pagination contract suite. */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { expectProblem, type TestContext } from '../helpers/harness.js';

import { CURSOR_MALFORMED, MALFORMED_BODY, type Item, type Row, type Parent, type ListEndpoint, requester } from './endpoints.js';

// ---------------------------------------------------------------------------------------------
// Helpers: pages, walks, problems
// ---------------------------------------------------------------------------------------------

export interface PageBody {
  items: Item[];
  nextCursor?: string | null;
  limit: number;
}

/** Joins query parts, dropping empty ones; '' when nothing is left. */
export function qs(...parts: Array<string | null | undefined | false>): string {
  const joined = parts.filter((p): p is string => typeof p === 'string' && p !== '').join('&');
  return joined === '' ? '' : `?${joined}`;
}

export const cursorParam = (cursor: string | null | undefined) => (cursor === null || cursor === undefined ? null : `cursor=${encodeURIComponent(cursor)}`);

/** Newest first: the sort key descending, then the id descending (bytewise), or ascending for a list of values (`idsAscending`). */
export function compareDesc(a: Row, b: Row, idsAscending = false): number {
  if (a.key !== b.key) return b.key - a.key;
  const byId = a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  return idsAscending ? -byId : byId;
}

export const sortDesc = (rows: Row[], idsAscending = false) => [...rows].sort((a, b) => compareDesc(a, b, idsAscending));

export function nextOf(page: PageBody): string | null {
  return page.nextCursor ?? null;
}

export function checkEnvelope(body: unknown, where: string): PageBody {
  const page = body as PageBody;
  expect(Array.isArray(page.items), `${where}: items is an array`).toBe(true);
  expect(Number.isInteger(page.limit), `${where}: limit is an integer`).toBe(true);
  // The envelope is items, nextCursor and limit: never a total count.
  for (const key of Object.keys(page)) expect(['items', 'nextCursor', 'limit'], `${where}: unexpected envelope field ${key}`).toContain(key);
  if (page.nextCursor !== undefined && page.nextCursor !== null) {
    expect(typeof page.nextCursor, `${where}: nextCursor is a string`).toBe('string');
    expect(page.nextCursor.length, `${where}: nextCursor is not empty`).toBeGreaterThan(0);
  }
  return page;
}

/** Asserts the one malformed-cursor problem: status, media type, type, title, detail, and nothing else. */
export function expectMalformed(res: LightMyRequestResponse, label: string): void {
  expect(res.statusCode, `${label}: ${res.statusCode} ${res.body.slice(0, 200)}`).toBe(400);
  expect(String(res.headers['content-type']), label).toMatch(/^application\/problem\+json/);
  const body = expectProblem(res, 400, 'validation', CURSOR_MALFORMED);
  expect(body.title, label).toBe('Validation failed');
  const { instance, ...rest } = body;
  void instance;
  expect(rest, label).toEqual(MALFORMED_BODY);
}

export function rowsOf(ep: ListEndpoint, items: Item[]): Row[] {
  return items.map((item) => ({ id: ep.idOf(item), key: ep.keyOf(item) }));
}

export function makeClient(ctx: TestContext) {
  const send = requester(ctx);
  async function getPage(parent: Parent, query: string, token: string = parent.principal.token): Promise<PageBody> {
    const res = await send('GET', `${parent.path}${query}`, { token });
    expect(res.statusCode, `GET ${parent.path}${query.slice(0, 120)} → ${res.body.slice(0, 300)}`).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    return checkEnvelope(res.json(), `${parent.path}${query.slice(0, 80)}`);
  }

  interface WalkOptions {
    /** Raw `limit` value for page i (undefined: omit the parameter). */
    limit?: (pageIndex: number) => string | undefined;
    filters?: string;
    token?: string;
    /** Runs after page i was fetched, before page i + 1. */
    between?: (pageIndex: number, page: PageBody) => Promise<void>;
    maxPages?: number;
  }

  /** Follows nextCursor from a cursorless first page to the end; returns every page. */
  async function walk(parent: Parent, options: WalkOptions = {}): Promise<PageBody[]> {
    const pages: PageBody[] = [];
    let cursor: string | null = null;
    const maxPages = options.maxPages ?? 500;
    for (let i = 0; ; i++) {
      if (i >= maxPages) throw new Error(`walk of ${parent.path} did not end within ${maxPages} pages`);
      const limit = options.limit?.(i);
      const page = await getPage(parent, qs(options.filters, limit === undefined ? null : `limit=${limit}`, cursorParam(cursor)), options.token);
      pages.push(page);
      cursor = nextOf(page);
      if (cursor === null) break;
      await options.between?.(i, page);
    }
    return pages;
  }

  return { getPage, walk };
}

/**
 * A complete, undisturbed walk: every row exactly once, newest first, each item carrying its exact sort
 * key, every page but the last exactly `limit` long, the last one ending with a null cursor and never
 * empty unless the whole list is.
 */
export function expectCompleteWalk(ep: ListEndpoint, pages: PageBody[], rows: Row[], limit: number, label: string): void {
  const expected = sortDesc(rows, ep.idsAscending);
  const seen = rowsOf(
    ep,
    pages.flatMap((p) => p.items),
  );
  expect(
    seen.map((r) => r.id),
    `${label}: ids in order, each once`,
  ).toEqual(expected.map((r) => r.id));
  expect(
    seen.map((r) => r.key),
    `${label}: sort keys round-trip exactly`,
  ).toEqual(expected.map((r) => r.key));
  expect(pages.length, `${label}: number of pages`).toBe(Math.max(1, Math.ceil(rows.length / limit)));
  pages.forEach((page, i) => {
    expect(page.limit, `${label}: page ${i} echoes the limit used`).toBe(limit);
    if (i < pages.length - 1) {
      expect(page.items.length, `${label}: page ${i} is full`).toBe(limit);
      expect(nextOf(page), `${label}: page ${i} has a cursor`).not.toBeNull();
    } else {
      expect(nextOf(page), `${label}: the last page has no cursor`).toBeNull();
      expect(page.items.length, `${label}: last page size`).toBeLessThanOrEqual(limit);
      if (rows.length > 0) expect(page.items.length, `${label}: no empty trailing page`).toBeGreaterThan(0);
    }
  });
}
