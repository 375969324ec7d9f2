import { expect } from 'vitest';
import { expectProblem, type ProblemResponse } from './harness.js';

/** What must never appear in an error body: SQL, stack frames, engine names. */
export const LEAK = /select |insert |stack|at .*\.ts:|sqlite|postgres/i;

/**
 * Any error response: a 4xx (never 5xx), `application/problem+json`, a well-formed problem body, and
 * nothing in it that betrays the implementation. `echoed` lists request values the detail may quote back
 * (an id in "Project … does not exist."), which are removed before the leak check.
 */
export function expectCleanProblem(response: ProblemResponse, echoed: string[] = []): Record<string, unknown> {
  const summary = `${response.statusCode} ${response.headers['content-type']} ${response.body.slice(0, 400)}`;
  expect(response.statusCode, summary).toBeGreaterThanOrEqual(400);
  expect(response.statusCode, summary).toBeLessThan(500);
  expect(String(response.headers['content-type']), summary).toMatch(/^application\/problem\+json/);
  const body = response.json() as Record<string, unknown>;
  expect(body.status, summary).toBe(response.statusCode);
  expect(typeof body.type, summary).toBe('string');
  expect(typeof body.title, summary).toBe('string');
  expect(typeof body.detail, summary).toBe('string');
  let text = response.body;
  for (const value of echoed) {
    if (value === '') continue;
    text = text.split(value).join('').split(JSON.stringify(value).slice(1, -1)).join('');
  }
  expect(text, summary).not.toMatch(LEAK);
  return body;
}

export interface FieldFault {
  pointer?: string;
  parameter?: string;
  detail: string;
}

/**
 * A 400 validation problem whose `errors` lists every fault. `pointers`/`parameters`, when given, must
 * each be named by at least one entry.
 */
export function expectValidation(
  response: ProblemResponse,
  expected: { pointers?: string[]; parameters?: string[] } = {},
  echoed: string[] = [],
): FieldFault[] {
  const body = expectProblem(response, 400, 'validation');
  expectCleanProblem(response, echoed);
  const errors = body.errors as FieldFault[] | undefined;
  const summary = response.body.slice(0, 600);
  expect(Array.isArray(errors), `errors must be an array: ${summary}`).toBe(true);
  expect(errors!.length, summary).toBeGreaterThan(0);
  for (const e of errors!) {
    expect(typeof e.detail, summary).toBe('string');
    expect(e.detail.length, summary).toBeGreaterThan(0);
    const hasPointer = typeof e.pointer === 'string';
    const hasParameter = typeof e.parameter === 'string';
    expect(hasPointer !== hasParameter, `each fault names a pointer or a parameter: ${summary}`).toBe(true);
  }
  for (const p of expected.pointers ?? []) {
    expect(
      errors!.map((e) => e.pointer),
      summary,
    ).toContain(p);
  }
  for (const p of expected.parameters ?? []) {
    expect(
      errors!.map((e) => e.parameter),
      summary,
    ).toContain(p);
  }
  return errors!;
}
