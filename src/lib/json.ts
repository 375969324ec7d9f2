const quotedKeys = new Map<string, string>();

/** An object key as JSON text: the same few keys recur in every run, so their quoted text is kept (within a bound). */
function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size >= 4096) quotedKeys.clear();
    quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * JSON with object keys sorted (and undefined members left out), so equal values always give equal
 * text: what cursors bind their filters with and what idempotent run retries are compared by (the text
 * is hashed and stored, so it never changes: keys in code-unit order, `null` for undefined array items).
 * Written with loops rather than entries, filter, map and join: it runs over every run a client names.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) out += ',';
      out += item === undefined ? 'null' : canonicalJson(item);
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) sortKeys(keys);
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${quotedKey(key)}:${typeof item === 'string' ? JSON.stringify(item) : canonicalJson(item)}`;
  }
  return `${out}}`;
}

/**
 * A canonical text of a JSON value for hashing, cheaper to write than canonicalJson: object keys sorted
 * (undefined members left out, undefined array items as null), strings and keys written as they are
 * after their length, numbers closed by `;`, so every token ends where the text says and no two values
 * give one text. Not JSON; never parsed. What new runs' content hashes digest (runs.content-hash.ts).
 */
export function canonicalText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `${value.length}"${value}`;
    case 'number':
      return `#${value};`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'object':
      break;
    default:
      return 'n';
  }
  if (value === null) return 'n';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += canonicalText(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) sortKeys(keys);
  let out = '{';
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out += `${key.length}:${key}${canonicalText(item)}`;
  }
  return `${out}}`;
}

/**
 * Sorts keys in place as `sort()` does (by UTF-16 code units); an object's few keys by insertion, which
 * for the many small objects of a run's content is a sixth faster than `Array.prototype.sort` (which
 * copies any array it sorts) and allocates nothing.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

/**
 * Sets a member of a plain object built from client data, as `Object.fromEntries` would: an own
 * enumerable property for any key, `__proto__` included (which an assignment would take as the
 * prototype), keeping the first position of a repeated key and its last value. Cheaper than collecting
 * entries for `Object.fromEntries` where every span or run builds a few such objects.
 */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
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
  // Two stacks, the values and their depths: no pair allocated per value.
  const stack: unknown[] = [value];
  const depths: number[] = [0];
  while (stack.length > 0) {
    const item = stack.pop();
    const depth = depths.pop()!;
    if (typeof item === 'string') {
      if (parsedByEngines && textFault(item) !== null) return unparsable;
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `Must not nest more than ${MAX_JSON_DEPTH} levels deep.`;
    // Without Object.entries: no array per member, which a body of a million values would feel.
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        stack.push(item[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in item) {
      if (parsedByEngines && textFault(key) !== null) return unparsable;
      stack.push((item as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return null;
}
