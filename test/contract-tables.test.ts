/**
 * The contract tables cover the API: every operation of the committed OpenAPI document is tried by the
 * bad-input suite, and every one that names an id in its path by the OWASP suite's BOLA matrix (another
 * organization's id is a 404). A new route that is in neither fails here until it is added to them.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ROUTES } from './bad-input/routes.js';
import { ID_ROUTES } from './owasp/world.js';

/** Operations the bad-input table does not try yet; their own suites check their inputs. Shrink it, never grow it. */
const NOT_IN_BAD_INPUT = new Set<string>([]);

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
const operations = Object.entries(doc.paths)
  .filter(([path]) => path.startsWith('/v1/') || path.startsWith('/api/public/'))
  .flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );

it('every /v1 and Langfuse (/api/public) operation is in the bad-input table (the known gaps aside)', () => {
  const tried = new Set(ROUTES.map((r) => `${r.method} ${r.route}`));
  expect(operations.length).toBeGreaterThan(70);
  expect(operations.filter((op) => !tried.has(op) && !NOT_IN_BAD_INPUT.has(op))).toEqual([]);
  // A gap that is closed leaves the list.
  expect([...NOT_IN_BAD_INPUT].filter((op) => tried.has(op) || !operations.includes(op))).toEqual([]);
});

it('every /v1 operation that names an id in its path is in the OWASP BOLA matrix', () => {
  const tried = new Set(ID_ROUTES.map((r) => `${r.method} ${r.route}`));
  expect(operations.filter((op) => op.includes('{') && !tried.has(op))).toEqual([]);
});
