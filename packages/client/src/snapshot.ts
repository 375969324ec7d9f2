const MAX_DEPTH = 64;
const MAX_ERROR = 100_000;

/**
 * A JSON snapshot of a value: cycles, functions, symbols and undefined left out, bigints as strings,
 * dates as ISO strings, nesting cut at a depth the server accepts. Taken when the run ends, so a retry
 * sends exactly the same content (which the server needs to recognise it) whatever the app does next.
 */
export function snapshot(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    let converted: unknown;
    try {
      converted = (toJSON as () => unknown).call(value);
    } catch {
      converted = String(value);
    }
    if (converted !== value) return snapshot(converted, depth, seen);
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => snapshot(item, depth + 1, seen) ?? null);
    if (value instanceof Map) return snapshot(Object.fromEntries(value), depth, seen);
    if (value instanceof Set) return snapshot([...value], depth, seen);
    if (value instanceof Error) return { name: value.name, message: value.message };
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const copy = snapshot(item, depth + 1, seen);
      if (copy !== undefined) out[key] = copy;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** A JSON object for `inputs`/`outputs`/`metadata`: objects as they are, anything else as `{ output }`. */
export function asObject(value: unknown, key = 'output'): Record<string, unknown> | null {
  const copy = snapshot(value);
  if (copy === undefined) return null;
  if (copy !== null && typeof copy === 'object' && !Array.isArray(copy)) return copy as Record<string, unknown>;
  return { [key]: copy };
}

/** An error as a failed run's `error` text, cut at the length the server takes. */
export function errorText(error: unknown): string {
  const text =
    error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : (JSON.stringify(snapshot(error)) ?? String(error));
  return text.length > MAX_ERROR ? text.slice(0, MAX_ERROR) : text;
}
