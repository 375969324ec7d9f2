import type { TSchema } from '@sinclair/typebox';

const ENFORCED_ELSEWHERE = Symbol('enforced elsewhere');

/**
 * In the schema of a pattern's query parameters (`score.<name>`), value patterns for the parameters whose name
 * ends a certain way (`{ '[<>]$': '<a number>' }`), enforced elsewhere: lib/operations.ts writes them as the
 * parameter's `patternProperties`.
 */
export const VALUE_PATTERN_BY_NAME = 'x-sightline-valuePatternByName';

/**
 * States constraints in a schema, so that the API document shows them to clients, generators and
 * fuzzers, that the validator leaves out because something else enforces them with a problem of its
 * own: the route after the schema (a bound that is a setting, a rule across fields), or a stricter
 * keyword of the same schema (a pattern that bounds the length). A request is refused as before, with
 * the same faults: each reported once, and a route's own only when the schema holds.
 */
export function enforcedElsewhere<T extends TSchema>(schema: T, constraints: Record<string, unknown>): T {
  return { ...schema, ...constraints, [ENFORCED_ELSEWHERE]: Object.keys(constraints) };
}

type Marked = Record<string, unknown> & { [ENFORCED_ELSEWHERE]?: string[] };

function marks(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  if (ENFORCED_ELSEWHERE in value) return true;
  return Object.values(value).some(marks);
}

function validatedPart(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(validatedPart);
  if (!value || typeof value !== 'object') return value;
  const skip = new Set((value as Marked)[ENFORCED_ELSEWHERE] ?? []);
  return Object.fromEntries(Object.entries(value).flatMap(([key, item]) => (skip.has(key) ? [] : [[key, validatedPart(item)]])));
}

/** The schema the validator compiles: without the constraints `enforcedElsewhere` states (the schema itself when it states none). */
export function validatedSchema(schema: object): object {
  return marks(schema) ? (validatedPart(schema) as object) : schema;
}
