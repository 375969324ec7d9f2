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

/** A value whose JSON text was too long: the start of that text with a marker. Values kept whole are kept as they are (no object per attribute). */
class Cut {
  constructor(readonly value: string) {}
}
type Kept = unknown;

/** A value as kept: whole, or when its JSON text is too long, a `Cut`. */
function keptValue(value: unknown): Kept {
  // Numbers, booleans and null are short whatever they are.
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= MAX_METADATA_VALUE_LENGTH) return value;
  // Never end on half a surrogate pair.
  const cut = /[\ud800-\udbff]/.test(text[MAX_METADATA_VALUE_LENGTH - 1] ?? '') ? MAX_METADATA_VALUE_LENGTH - 1 : MAX_METADATA_VALUE_LENGTH;
  return new Cut(`${text.slice(0, cut)} …[truncated]`);
}

const NOT_MADE = Symbol('not made');

type Skip = (key: string) => boolean;
const keepAll: Skip = () => false;

/**
 * What a resource gives the metadata of each of its spans, prepared once per resource: its attributes
 * that are kept (not `skip`ped), in order, each value bounded when first used. A span reads at most
 * MAX_METADATA_KEYS of them, so mapping N spans of a resource with A attributes costs N + A, never N × A.
 */
export interface ResourceMetadata {
  /** The resource's attributes as they are (for lookups such as the session or the end user). */
  readonly attributes: Attributes;
  readonly skip: Skip;
  readonly keys: readonly string[];
  /** Kept values, made on first use (NOT_MADE until then). */
  readonly kept: Kept[];
}

/** `keys`: the resource's keys that are kept, in order, when the caller has them (made a few at a time). */
export function resourceMetadata(resource: Attributes, skip: Skip = keepAll, keys = Object.keys(resource).filter((key) => !skip(key))): ResourceMetadata {
  return { attributes: resource, skip, keys, kept: new Array<Kept>(keys.length).fill(NOT_MADE) };
}

/**
 * A resource's metadata as the spans of one of its scopes inherit it: the scope's attributes (its name and
 * version) over the resource's, as if spread after them — a key the resource has keeps its place. Made per
 * scope in the time of the scope's own attributes.
 */
export interface InheritedMetadata {
  readonly resource: ResourceMetadata;
  /** Scope values for keys the resource has too. */
  readonly overrides: ReadonlyMap<string, Kept>;
  /** Scope attributes the resource does not have, after the resource's. */
  readonly extra: readonly { key: string; kept: Kept }[];
}

export function inheritedMetadata(resource: ResourceMetadata, scope: Attributes = {}): InheritedMetadata {
  const overrides = new Map<string, Kept>();
  const extra: { key: string; kept: Kept }[] = [];
  for (const key of Object.keys(scope)) {
    if (resource.skip(key)) continue;
    if (inheritsKey(resource, key)) overrides.set(key, keptValue(scope[key]));
    else extra.push({ key, kept: keptValue(scope[key]) });
  }
  return { resource, overrides, extra };
}

/** Whether the resource gives spans `key` (it has it, and it is kept). */
const inheritsKey = (resource: ResourceMetadata, key: string) => Object.hasOwn(resource.attributes, key) && !resource.skip(key);

function inheritedAt(resource: ResourceMetadata, i: number): Kept {
  const kept = resource.kept[i];
  return kept !== NOT_MADE ? kept : (resource.kept[i] = keptValue(resource.attributes[resource.keys[i]!]));
}

/**
 * Span attributes, then those it inherits (its resource's and its scope's) that the span does not carry
 * itself, in order. A value whose JSON is too long becomes the start of that text with ` …[truncated]`;
 * attributes past the count are left out (counted in the marker). Keys the caller maps to a field of its
 * own (the resource's `skip`) are left out. The time is the span's attributes plus MAX_METADATA_KEYS,
 * whatever the number of inherited ones.
 */
export function metadataOf(span: Attributes, inherited: InheritedMetadata): Record<string, unknown> {
  const { resource, overrides, extra } = inherited;
  const metadata: Record<string, unknown> = {};
  let truncatedValues: string[] | null = null;
  let count = 0;
  const put = (key: string, kept: Kept) => {
    if (count++ >= MAX_METADATA_KEYS) return;
    if (kept instanceof Cut) {
      setMember(metadata, key, kept.value);
      (truncatedValues ??= []).push(key);
    } else setMember(metadata, key, kept);
  };
  let hidden = 0;
  for (const key in span) {
    if (inheritsKey(resource, key) || extra.some((e) => e.key === key)) hidden++;
    if (resource.skip(key)) continue;
    if (count < MAX_METADATA_KEYS) put(key, keptValue(span[key]));
    else count++;
  }
  const own = count;
  for (let i = 0; i < resource.keys.length && count < MAX_METADATA_KEYS; i++) {
    const key = resource.keys[i]!;
    if (Object.hasOwn(span, key)) continue;
    put(key, overrides.has(key) ? overrides.get(key) : inheritedAt(resource, i));
  }
  for (const e of extra) if (count < MAX_METADATA_KEYS && !Object.hasOwn(span, e.key)) put(e.key, e.kept);
  const total = own + resource.keys.length + extra.length - hidden;
  const droppedKeys = Math.max(0, total - MAX_METADATA_KEYS);
  if (truncatedValues !== null || droppedKeys > 0) metadata[TRUNCATED_KEY] = { values: truncatedValues ?? [], droppedKeys };
  return metadata;
}
