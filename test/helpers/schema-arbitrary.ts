import fc from 'fast-check';

/**
 * fast-check arbitraries for the JSON Schemas of an OpenAPI document (the keywords `openapi.json` uses:
 * types, enum/const, anyOf/oneOf, string bounds, patterns and formats, number bounds, arrays, objects with
 * required, optional, additional and pattern properties, propertyNames, min/maxProperties). What they
 * generate is meant to be valid; the caller checks every value against the schema itself (Ajv) and keeps
 * only the valid ones, so a keyword these only approximate (`not`, `oneOf`'s "exactly one",
 * `dependentRequired`, `uniqueItems`) costs a discarded sample, never a false finding.
 */
export type Schema = Record<string, any>;

export interface ArbitraryOptions {
  /** Resolves a `$ref` (`#/components/schemas/Name`) of the document. */
  resolve(ref: string): Schema;
  /** How many `$ref`s deep a value may go before only its smallest form is generated. */
  maxDepth?: number;
}

/** A pattern without its lookarounds (`(?!…)`, `(?=…)`, `(?<!…)`, `(?<=…)`), nested groups, escapes and classes minded. */
function withoutLookarounds(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (!/^\(\?<?[!=]/.test(pattern.slice(i, i + 4))) {
      out += pattern[i];
      if (pattern[i] === '\\') out += pattern[++i] ?? '';
      continue;
    }
    let depth = 0;
    let inClass = false;
    for (; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === '\\') i++;
      else if (inClass) inClass = c !== ']';
      else if (c === '[') inClass = true;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) break;
    }
  }
  return out;
}

/** Strings of a pattern: fast-check's regex arbitrary, lookarounds (which it does not read) left to the filter. */
function matching(pattern: string, maxLength: number): fc.Arbitrary<string> {
  const regex = new RegExp(pattern, 'u');
  let source: fc.Arbitrary<string>;
  try {
    source = fc.stringMatching(regex, { maxLength });
  } catch {
    source = fc.stringMatching(new RegExp(withoutLookarounds(pattern), 'u'), { maxLength });
  }
  return source.filter((s) => regex.test(s));
}

const DAY = 86_400_000;
const EPOCH_2026 = Date.parse('2026-01-01T00:00:00.000Z');

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 64, min + 64);
  const fits = (s: string) => s.length >= min && s.length <= (schema.maxLength ?? Infinity);
  // A pattern says more than a format (the caller checks the format of what it makes).
  if (typeof schema.pattern === 'string') return matching(schema.pattern, max).filter(fits);
  switch (schema.format) {
    case 'date-time':
      return fc.integer({ min: EPOCH_2026 - 400 * DAY, max: EPOCH_2026 + 400 * DAY }).map((ms) => new Date(ms).toISOString());
    case 'uri':
      return fc.webUrl({ withQueryParameters: true, withFragments: true }).filter(fits);
    case 'email':
      return fc.emailAddress().filter(fits);
    default:
      break;
  }
  return fc.string({ unit: 'grapheme', minLength: min, maxLength: max }).filter(fits);
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const low = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : Number.EPSILON) : schema.minimum;
  const high = schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : Number.EPSILON) : schema.maximum;
  if (integer) {
    const min = Math.max(low ?? -1_000_000, Number.MIN_SAFE_INTEGER);
    const max = Math.min(high ?? 1_000_000, Number.MAX_SAFE_INTEGER);
    // The bounds themselves, as often as anything between them: where off-by-one rules live.
    return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }));
  }
  const min = low ?? -1e9;
  const max = high ?? 1e9;
  return fc.oneof(
    fc.constantFrom(min, max),
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  );
}

export function arbitraryOf(schema: Schema, options: ArbitraryOptions, depth = 0): fc.Arbitrary<unknown> {
  const maxDepth = options.maxDepth ?? 4;
  if (schema.$ref) return depth >= maxDepth ? smallest(options.resolve(schema.$ref), options) : arbitraryOf(options.resolve(schema.$ref), options, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) {
    const others: Schema = { ...schema };
    delete others.anyOf;
    delete others.oneOf;
    return fc.oneof(...branches.map((branch: Schema) => arbitraryOf({ ...others, ...branch }, options, depth)));
  }
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type: string) => arbitraryOf({ ...schema, type }, options, depth)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'string':
      return stringOf(schema);
    case 'array': {
      const items = schema.items ? arbitraryOf(schema.items, options, depth) : fc.jsonValue({ maxDepth: 2 });
      const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, (schema.minItems ?? 0) + 4) };
      return schema.uniqueItems ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) }) : fc.array(items, constraints);
    }
    case 'object':
      return objectOf(schema, options, depth);
    default:
      // No type: any JSON value (free-form inputs, outputs, metadata values).
      return fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
  }
}

function objectOf(schema: Schema, options: ArbitraryOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) record[name] = arbitraryOf(property, options, depth);
  const known = fc.record(record, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
  const extra = extraMembers(schema, options, depth, properties);
  return fc.tuple(known, extra).map(([own, more]) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(more)) if (!(key in properties)) out[key] = value;
    return Object.assign(out, own);
  });
}

/**
 * Members beyond `properties`: named by `propertyNames` (else by a `patternProperties` pattern, else freely),
 * each valued by the first `patternProperties` entry its name matches, else by `additionalProperties`.
 */
function extraMembers(schema: Schema, options: ArbitraryOptions, depth: number, properties: Record<string, Schema>): fc.Arbitrary<Record<string, unknown>> {
  const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>);
  const additional = schema.additionalProperties;
  const room = Math.max(0, Math.min((schema.maxProperties ?? Infinity) - Object.keys(properties).length, 3));
  const least = Math.max(0, (schema.minProperties ?? 0) - (schema.required?.length ?? 0));
  if (additional === false && patterns.length === 0) return fc.constant({});
  const key: fc.Arbitrary<string> = schema.propertyNames
    ? stringOf({ type: 'string', ...schema.propertyNames })
    : patterns.length > 0
      ? fc.oneof(...patterns.map(([pattern]) => matching(pattern, 40)))
      : fc.string({ minLength: 1, maxLength: 12 });
  const valueOf = (name: string): fc.Arbitrary<unknown> => {
    const match = patterns.find(([pattern]) => new RegExp(pattern, 'u').test(name));
    if (match) return arbitraryOf(match[1], options, depth);
    return additional && typeof additional === 'object' ? arbitraryOf(additional, options, depth) : fc.jsonValue({ maxDepth: 1 });
  };
  const member = key.chain((name) => valueOf(name).map((value) => [name, value] as const));
  return fc.array(member, { minLength: least, maxLength: Math.max(least, room) }).map((pairs) => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of pairs) out[name] = value;
    return out;
  });
}

/** The smallest value of a schema, where recursion has to stop: null, else its required members only. */
function smallest(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches?.some((b) => b.type === 'null') || schema.type === 'null') return fc.constant(null);
  if (schema.type === 'array') return fc.constant([]);
  if (schema.type === 'object' && !(schema.required?.length > 0)) return fc.constant({});
  return arbitraryOf(schema, { ...options, maxDepth: Number.POSITIVE_INFINITY }, 0);
}
