import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext } from './harness.js';

/** A parsed JSON response body, read field by field in assertions: the one body type of every suite. */
export type Json = Record<string, any>;

/** Asserts the status (with the start of the body as the message) and returns the parsed body. */
export function ok(res: LightMyRequestResponse, status = 200): Json {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res.json() as Json;
}

/** Every item of a list with this token, following `nextCursor` to the last page (at most 100 pages of `limit`). */
export async function allItems(request: TestContext['request'], token: string, url: string, limit = 100): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page: Json = ok(
      await request('GET', `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token }),
    );
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return items;
  }
  throw new Error(`${url}: the list did not end`);
}
