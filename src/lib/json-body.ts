import { isAscii } from 'node:buffer';
import { Problem, problems } from './problems.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of UTF-8 bytes (a leading byte order mark dropped), or an exception where they are not UTF-8.
 * ASCII (nearly every body) is copied as Latin-1, which is the same text at half the cost or less of the
 * strict decoder (measured on a 1.3 MB batch: ~2 ms against ~4.5 ms).
 */
export function utf8Text(bytes: Uint8Array): string {
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return utf8.decode(bytes);
}

/**
 * What one body may hold, whatever its size: objects and arrays, and values (elements and members).
 * A 10 MB body of empty arrays is three million objects on the heap (over 100 MB), and one object of
 * 700,000 keys over 60 MB: that, not the size, is what exhausted the heap. A 1,000-run batch of
 * 50-message conversations holds about 55,000 objects and arrays and 160,000 values.
 */
export const MAX_JSON_CONTAINERS = 100_000;
export const MAX_JSON_VALUES = 250_000;

/**
 * A JSON request body, decoded exactly or refused with a validation problem naming the place: the
 * bytes must be UTF-8 (nothing is replaced by U+FFFD), the text JSON, and every number finite (`1e309`
 * would otherwise be stored as null). Rules on what a field may hold (nesting, text the engines can
 * store) belong to the fields: see `jsonValueFault` in lib/json.
 *
 * Any key is data, `__proto__` and `constructor` included (LLM inputs and metadata can carry any key):
 * JSON.parse defines each as an own property and never touches a prototype. Code that copies a client's
 * object therefore builds the copy with spread or `Object.fromEntries`, never by assigning `copy[key]`.
 */
export function decodeJsonBody(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw problems.validation([{ pointer: '', detail: 'The body is empty but Content-Type says JSON.' }]);
  const counts = checkJsonCounts(bytes, MAX_JSON_CONTAINERS, MAX_JSON_VALUES);
  let text: string;
  try {
    text = utf8Text(bytes);
  } catch {
    throw problems.validation([{ pointer: '', detail: `The body is not valid UTF-8 (at byte ${invalidUtf8At(bytes)}).` }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw problems.validation([{ pointer: '', detail: 'The body is not valid JSON.' }]);
  }
  // Only a number with a positive exponent, or of 309 digits or more, can overflow: text without one
  // (nearly every body) is not walked. A body large enough to be counted was looked at outside its
  // strings (where ids such as "4e7a…" made the text's test say maybe); a smaller one is tested whole.
  const maybeOverflowing = counts ? counts.maybeOverflowing : MAYBE_OVERFLOWING.test(text);
  const pointer = maybeOverflowing ? nonFiniteNumberAt(value) : null;
  if (pointer !== null) throw problems.validation([{ pointer, detail: 'The number is out of range (it does not fit a 64-bit floating-point number).' }]);
  return value;
}

const MAYBE_OVERFLOWING = /\d[eE]\+?\d|\d{309}/;

/**
 * A 413 problem when JSON text holds more objects and arrays, or values, than given (counted without
 * parsing it). Returns the counts, or null when the text was too short to need them (or a string in it
 * never ends, which parsing refuses).
 */
export function checkJsonCounts(bytes: Uint8Array, maxContainers: number, maxValues: number): JsonCounts | null {
  // Shorter text cannot exceed either count: an object or array takes at least two bytes (`[]`, nested
  // without commas), a value at least two (`1,`).
  if (bytes.length < Math.min(2 * maxContainers, 2 * maxValues)) return null;
  const counts = countJson(bytes);
  if (counts && counts.containers > maxContainers) throw tooMany(`${maxContainers.toLocaleString('en-US')} objects and arrays`);
  if (counts && counts.values > maxValues) throw tooMany(`${maxValues.toLocaleString('en-US')} values`);
  return counts;
}

interface JsonCounts {
  containers: number;
  values: number;
  /** Outside strings, an exponent that is not negative (`e5`, `E+5`), or a run of 309 digits or more: a number that may overflow. */
  maybeOverflowing: boolean;
}

const tooMany = (what: string) =>
  new Problem('payload-too-large', { detail: `The body holds more than ${what}; send less at once (for example fewer runs per batch).` });

/**
 * Objects and arrays, and values (about: elements and members, from the commas), of JSON text, counted
 * on its bytes without parsing it (strings are skipped with indexOf); null if a string never ends.
 */
function countJson(bytes: Uint8Array): JsonCounts | null {
  let containers = 0;
  let commas = 0;
  let digits = 0;
  let maybeOverflowing = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c >= 0x30 && c <= 0x39) {
      if (++digits >= 309) maybeOverflowing = true;
      continue;
    }
    digits = 0;
    if (c === 0x22) {
      // To the closing quote: one that is not escaped (preceded by an even run of backslashes).
      let end = i;
      for (;;) {
        end = bytes.indexOf(0x22, end + 1);
        if (end === -1) return null;
        let backslashes = 0;
        while (bytes[end - 1 - backslashes] === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x2c) commas++;
    else if (c === 0x7b || c === 0x5b) containers++;
    else if (c === 0x65 || c === 0x45) {
      // Outside strings, e is in `true`, `false` or an exponent; one followed by + or a digit is not negative.
      const next = bytes[i + 1];
      if (next === 0x2b || (next !== undefined && next >= 0x30 && next <= 0x39)) maybeOverflowing = true;
    }
  }
  return { containers, values: containers + commas + 1, maybeOverflowing };
}

interface Frame {
  value: object;
  key: string;
  parent: Frame | null;
}

function pointerOf(frame: Frame, last: string): string {
  const keys = [last];
  for (let f: Frame | null = frame; f.parent; f = f.parent) keys.push(f.key);
  return keys
    .reverse()
    .map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
}

/** The pointer of the first number JSON.parse could not represent (±Infinity), or null. Iterative: any depth is safe. */
function nonFiniteNumberAt(root: unknown): string | null {
  if (typeof root === 'number') return Number.isFinite(root) ? null : '';
  if (root === null || typeof root !== 'object') return null;
  const stack: Frame[] = [{ value: root, key: '', parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const container = frame.value as Record<string, unknown>;
    const keys = Array.isArray(container) ? null : Object.keys(container);
    const length = keys ? keys.length : (container as unknown as unknown[]).length;
    for (let i = 0; i < length; i++) {
      const key = keys ? keys[i]! : String(i);
      const child = container[key];
      if (typeof child === 'number') {
        if (!Number.isFinite(child)) return pointerOf(frame, key);
      } else if (child !== null && typeof child === 'object') stack.push({ value: child, key, parent: frame });
    }
  }
  return null;
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence (only called on failure). */
function invalidUtf8At(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const [extra, min, bits] =
      lead >= 0xc2 && lead <= 0xdf
        ? [1, 0x80, lead & 0x1f]
        : lead >= 0xe0 && lead <= 0xef
          ? [2, 0x800, lead & 0x0f]
          : lead >= 0xf0 && lead <= 0xf4
            ? [3, 0x10000, lead & 0x07]
            : [0, 0, 0];
    if (extra === 0 || i + extra >= bytes.length) return i;
    let codePoint = bits;
    for (let k = 1; k <= extra; k++) {
      const next = bytes[i + k]!;
      if ((next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return i;
    i += extra + 1;
  }
  return bytes.length;
}
