/**
 * The span and resource attributes a run keeps in `metadata`, each under its own dotted name, within
 * bounds: a span with thousands of attributes or a megabyte-long one is truncated, with a marker saying
 * what was cut, rather than refused. Dependency-free (but for the one way to set a member of client data).
 */
import { setMember } from '../../lib/json.js';

type Attributes = Record<string, unknown>;

export const MAX_METADATA_KEYS = 128;
/** The longest value kept whole, in UTF-16 code units of its JSON text. */
export const MAX_METADATA_VALUE_LENGTH = 8192;
/** Where the marker goes: which values were cut, and how many attributes were left out. */
export const TRUNCATED_KEY = 'sightline.truncated';

/** A value as kept: whole, or when its JSON text is too long, the start of that text with a marker (its key noted). */
function keptValue(key: string, value: unknown, truncatedValues: string[]): unknown {
  // Numbers, booleans and null are short whatever they are.
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= MAX_METADATA_VALUE_LENGTH) return value;
  truncatedValues.push(key);
  // Never end on half a surrogate pair.
  const cut = /[\ud800-\udbff]/.test(text[MAX_METADATA_VALUE_LENGTH - 1] ?? '') ? MAX_METADATA_VALUE_LENGTH - 1 : MAX_METADATA_VALUE_LENGTH;
  return `${text.slice(0, cut)} …[truncated]`;
}

/**
 * Span attributes, then those of its resource that the span does not carry itself, in order. A value
 * whose JSON is too long becomes the start of that text with ` …[truncated]`; attributes past the
 * count are left out. Keys whose name the caller maps to a field of its own can be left out with `skip`.
 * One pass, no intermediate entries: it runs for every span.
 */
export function metadataOf(span: Attributes, resource: Attributes, skip: (key: string) => boolean = () => false): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  const truncatedValues: string[] = [];
  let count = 0;
  for (const key of Object.keys(span)) {
    if (skip(key)) continue;
    if (count++ < MAX_METADATA_KEYS) setMember(metadata, key, keptValue(key, span[key], truncatedValues));
  }
  for (const key of Object.keys(resource)) {
    if (Object.prototype.propertyIsEnumerable.call(span, key) || skip(key)) continue;
    if (count++ < MAX_METADATA_KEYS) setMember(metadata, key, keptValue(key, resource[key], truncatedValues));
  }
  const droppedKeys = Math.max(0, count - MAX_METADATA_KEYS);
  if (truncatedValues.length > 0 || droppedKeys > 0) metadata[TRUNCATED_KEY] = { values: truncatedValues, droppedKeys };
  return metadata;
}
