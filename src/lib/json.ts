/**
 * JSON with object keys sorted (and undefined members left out), so equal values always give equal
 * text: what cursors bind their filters with and what idempotent run retries are compared by.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * How deeply free-form JSON fields (run inputs, outputs and metadata, prompt configs, monitor filters)
 * may nest: far beyond real use, well within the recursion of JSON.stringify and of SQLite's JSON functions.
 */
export const MAX_JSON_DEPTH = 100;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a text value cannot be stored as sent, or null: PostgreSQL refuses U+0000 in text, and both
 * engines store text as UTF-8, which has no encoding for half a surrogate pair (it would be stored as
 * U+FFFD while the answer echoed the original).
 */
export function textFault(value: string): string | null {
  if (value.includes('\u0000')) return 'Must not contain the NUL character (U+0000).';
  if (LONE_SURROGATE.test(value)) return 'Must not contain an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape).';
  return null;
}

/**
 * What is wrong with a JSON value beyond its schema, or null: nesting deeper than MAX_JSON_DEPTH (which
 * was a 500), and, for a value the engines parse (metadata, read by the filters), a U+0000 or an unpaired
 * surrogate in a key or string, which PostgreSQL's JSON parser refuses. Iterative: the value may be
 * arbitrarily deep.
 */
export function jsonValueFault(value: unknown, parsedByEngines: boolean): string | null {
  const unparsable = 'Must not contain U+0000 or an unpaired surrogate.';
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item === 'string') {
      if (parsedByEngines && textFault(item) !== null) return unparsable;
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `Must not nest more than ${MAX_JSON_DEPTH} levels deep.`;
    // Without Object.entries: no array per member, which a body of a million values would feel.
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) stack.push([item[i], depth + 1]);
      continue;
    }
    for (const key in item) {
      if (parsedByEngines && textFault(key) !== null) return unparsable;
      stack.push([(item as Record<string, unknown>)[key], depth + 1]);
    }
  }
  return null;
}
