/**
 * The span and resource attributes a run keeps in `metadata`, each under its own dotted name, within
 * bounds: a span with thousands of attributes or a megabyte-long one is truncated, with a marker saying
 * what was cut, rather than refused. Dependency-free.
 */

type Attributes = Record<string, unknown>;

export const MAX_METADATA_KEYS = 128;
/** The longest value kept whole, in UTF-16 code units of its JSON text. */
export const MAX_METADATA_VALUE_LENGTH = 8192;
/** Where the marker goes: which values were cut, and how many attributes were left out. */
export const TRUNCATED_KEY = 'sightline.truncated';

/**
 * Span attributes, then those of its resource that the span does not carry itself, in order. A value
 * whose JSON is too long becomes the start of that text with ` …[truncated]`; attributes past the
 * count are left out. Keys whose name the caller maps to a field of its own can be left out with `skip`.
 */
export function metadataOf(span: Attributes, resource: Attributes, skip: (key: string) => boolean = () => false): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  const seen = new Set<string>();
  for (const source of [span, resource]) {
    for (const [key, value] of Object.entries(source)) {
      if (seen.has(key) || skip(key)) continue;
      seen.add(key);
      entries.push([key, value]);
    }
  }
  const truncatedValues: string[] = [];
  const kept = entries.slice(0, MAX_METADATA_KEYS).map(([key, value]): [string, unknown] => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text === undefined || text.length <= MAX_METADATA_VALUE_LENGTH) return [key, value];
    truncatedValues.push(key);
    // Never end on half a surrogate pair.
    const cut = /[\ud800-\udbff]/.test(text[MAX_METADATA_VALUE_LENGTH - 1] ?? '') ? MAX_METADATA_VALUE_LENGTH - 1 : MAX_METADATA_VALUE_LENGTH;
    return [key, `${text.slice(0, cut)} …[truncated]`];
  });
  const droppedKeys = entries.length - kept.length;
  const metadata = Object.fromEntries(kept);
  if (truncatedValues.length > 0 || droppedKeys > 0) metadata[TRUNCATED_KEY] = { values: truncatedValues, droppedKeys };
  return metadata;
}
