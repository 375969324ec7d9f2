/** The JSON text areas of the dataset forms: a value as text to edit, and the text read back with its fault in words. */

export type ParsedJson<T> = { ok: true; value: T } | { ok: false; fault: string };

/** A value as the text areas show it: indented JSON; nothing for undefined. */
export function jsonText(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}

/**
 * A text area's JSON. Empty text is `empty` (a field left out: `undefined`, or `null` for "none"), unless
 * `required`; `object` asks for a JSON object (metadata). A fault names the field as the form labels it.
 */
export function parseJson(text: string, label: string, options: { required?: boolean; object?: boolean; empty?: null } = {}): ParsedJson<unknown> {
  if (text.trim() === '') {
    if (options.required) return { ok: false, fault: `${label} is required: write a JSON value such as {"question": "…"} or "a quoted string".` };
    return { ok: true, value: 'empty' in options ? options.empty : undefined };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'it does not parse';
    return { ok: false, fault: `${label} is not valid JSON (${reason}). Text goes in double quotes: "like this".` };
  }
  if (options.object && (value === null || typeof value !== 'object' || Array.isArray(value)))
    return { ok: false, fault: `${label} must be a JSON object, such as {"lang": "en"}.` };
  return { ok: true, value };
}

/** Whether two JSON values are the same (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}
