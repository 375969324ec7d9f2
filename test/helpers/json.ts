import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** A parsed JSON response body, read field by field in assertions: the one body type of every suite. */
export type Json = Record<string, any>;

/** Asserts the status (with the start of the body as the message) and returns the parsed body. */
export function ok(res: LightMyRequestResponse, status = 200): Json {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res.json() as Json;
}
