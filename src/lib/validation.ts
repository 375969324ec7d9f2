import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { validatedSchema } from './enforced-elsewhere.js';
import { textFault } from './json.js';
import { cursorWellFormed } from './pagination.js';
import { CURSOR_MALFORMED, problems, type FieldError } from './problems.js';

// ajv-formats ships CommonJS with a default export.
type AddFormats = (ajv: Ajv, formats: string[]) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true, // a validation problem lists every fault
    coerceTypes: false, // query strings are coerced strictly by coerceQuery, never loosely
    useDefaults: true,
    removeAdditional: false, // unknown fields are refused, never silently dropped
    strict: false,
  });
  addFormats(ajv, ['date-time', 'email', 'uri']);
  const dateTime = ajv.formats['date-time'] as { validate: (value: string) => boolean; compare: unknown };
  ajv.addFormat('date-time', { ...dateTime, validate: canonicalFirst(dateTime.validate) } as Parameters<Ajv['addFormat']>[1]);
  // The integer formats of OpenAPI say how wide a value is; `minimum` and `maximum` bound it.
  ajv.addFormat('int32', true);
  ajv.addFormat('int64', true);
  ajv.addKeyword({ keyword: 'x-tsType' });
  return ajv;
}

/** `2026-11-21T10:15:30.123Z`: what clients and the OTLP mapper send nearly always. */
const CANONICAL_DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?Z$/;
const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * ajv-formats' date-time check (splitting by a regular expression, then a regular expression for each
 * part: 2% of an OTLP export's time) with a fast path for the canonical form in UTC: when one expression
 * matches and every field is in range, the full check would say yes too; anything else (another zone,
 * a lower-case `t`, a leap second, a day out of range) is decided by the full check itself.
 */
export function canonicalFirst(full: (value: string) => boolean): (value: string) => boolean {
  return (value) => {
    const m = CANONICAL_DATE_TIME.exec(value);
    if (m !== null) {
      const year = +m[1]!;
      const month = +m[2]!;
      const day = +m[3]!;
      const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
      const days = month === 2 && !leap ? 28 : DAYS_IN_MONTH[month];
      if (month >= 1 && month <= 12 && day >= 1 && day <= days! && +m[4]! <= 23 && +m[5]! <= 59 && +m[6]! <= 59) return true;
    }
    return full(value);
  };
}

export const ajv = createAjv();

/** A JSON Schema as coercion and the text checks read it (a route's schema part, a TypeBox schema). */
type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  type?: unknown;
  patternProperties?: Record<string, Schema>;
  anyOf?: Schema[];
};

const STRICT_INTEGER = /^-?(0|[1-9][0-9]{0,999})$/;
/** JSON's number grammar, which is also what `String(number)` writes (`1e-7`, `2.5e+21`). */
const STRICT_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function typesOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (schema.anyOf) return schema.anyOf.flatMap(typesOf);
  return [];
}

function coerceScalar(value: unknown, schema: Schema | undefined): unknown {
  if (typeof value !== 'string') return value;
  const types = typesOf(schema);
  if (types.includes('string')) return value;
  if (types.includes('integer') && STRICT_INTEGER.test(value)) return Number(value);
  if (types.includes('number') && STRICT_NUMBER.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value; // left as a string: the validator reports the type fault
}

/**
 * Turns raw query/path strings into the types their schema declares, strictly: `1e2`, ` 5` or `0x10`
 * are not integers, a repeated scalar stays an array (and fails), and a single value for an array
 * parameter becomes a one-element array.
 */
export function coerceQuery(schema: Schema, input: Record<string, unknown>): Record<string, unknown> {
  // A null prototype keeps `__proto__` an ordinary (unknown, hence refused) parameter.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(input)) {
    let prop = schema.properties?.[key];
    if (!prop && schema.patternProperties) {
      for (const [pattern, candidate] of Object.entries(schema.patternProperties)) {
        if (new RegExp(pattern, 'u').test(key)) prop = candidate;
      }
    }
    if (typesOf(prop).includes('array')) {
      const items = (prop as Schema).items as Schema | undefined;
      out[key] = (Array.isArray(value) ? value : [value]).map((v) => coerceScalar(v, items));
    } else {
      out[key] = Array.isArray(value) ? value : coerceScalar(value, prop);
    }
  }
  return out;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `Missing required field '${String(p.missingProperty)}'.`;
    case 'additionalProperties':
      return `Unknown field '${String(p.additionalProperty)}'.`;
    case 'type':
      return `Must be of type ${String(p.type).replace(',', ' or ')}.`;
    case 'enum':
      return `Must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'const':
      return `Must be ${JSON.stringify(p.allowedValue)}.`;
    case 'format':
      return p.format === 'date-time' ? 'Must be an RFC 3339 date-time (for example 2026-11-21T10:15:30.123Z).' : `Must be a valid ${String(p.format)}.`;
    case 'pattern':
      return 'Has characters or a shape that is not allowed.';
    default:
      return `${(error.message ?? 'is invalid').replace(/^must/, 'Must')}.`;
  }
}

export type Location = 'body' | 'querystring' | 'params' | 'headers';

/** ajv errors → the `errors` array of a validation problem, one entry per fault, deduplicated. */
export function toFieldErrors(errors: ErrorObject[], location: Location, prefix = ''): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  // A nullable field that fails reports its non-null branch too: the "must be null" branch adds nothing.
  const paths = new Set(
    errors.filter((e) => !(e.keyword === 'type' && (e.params as { type?: string }).type === 'null') && e.keyword !== 'anyOf').map((e) => e.instancePath),
  );
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'if') continue; // the branch errors say more
    if (
      error.keyword === 'type' &&
      (error.params as { type?: string }).type === 'null' &&
      [...paths].some((p) => p === error.instancePath || p.startsWith(`${error.instancePath}/`))
    )
      continue;
    let path = error.instancePath;
    const p = error.params as Record<string, unknown>;
    if (error.keyword === 'required') path += `/${escapePointer(String(p.missingProperty))}`;
    if (error.keyword === 'additionalProperties') path += `/${escapePointer(String(p.additionalProperty))}`;
    const detail = describe(error);
    let entry: FieldError;
    if (location === 'body') {
      entry = { pointer: prefix + path, detail };
    } else {
      const name = path.split('/')[1] ?? '';
      entry = { parameter: name.replace(/~1/g, '/').replace(/~0/g, '~'), detail };
    }
    const key = JSON.stringify(entry);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(entry);
    }
  }
  return out;
}

const propertyTypes = new WeakMap<Schema, Map<string, string[]>>();

function declaredTypes(schema: Schema, key: string): string[] {
  let byKey = propertyTypes.get(schema);
  if (!byKey) {
    byKey = new Map(Object.entries(schema.properties ?? {}).map(([k, prop]) => [k, typesOf(prop)]));
    propertyTypes.set(schema, byKey);
  }
  return byKey.get(key) ?? [];
}

/**
 * Text the engines cannot store as sent (see `textFault`): no text field accepts it, on either engine
 * (free-form JSON objects such as run inputs are stored as escaped JSON text and may hold it). Checks the
 * strings the schema declares at the top level: fields, arrays of strings, parameters.
 */
export function textFaults(schema: Schema, data: unknown, location: Location, prefix = ''): FieldError[] {
  // A raw body (bytes a route decodes itself) has no text fields: listing a megabyte's indexes cost a second.
  if (!data || typeof data !== 'object' || Array.isArray(data) || ArrayBuffer.isView(data)) return [];
  const faults: FieldError[] = [];
  const record = data as Record<string, unknown>;
  // Without an array per member: every run of a batch is checked here.
  for (const key of Object.keys(record)) {
    const value = record[key];
    const prop = schema.properties?.[key];
    const types = declaredTypes(schema, key);
    if (prop && !types.includes('string') && !types.includes('array')) continue;
    let detail: string | null = null;
    if (typeof value === 'string') detail = textFault(value);
    else if (Array.isArray(value) && (types.includes('array') || !prop))
      for (const item of value) if (typeof item === 'string' && (detail = textFault(item)) !== null) break;
    if (detail === null) continue;
    faults.push(location === 'body' ? { pointer: `${prefix}/${escapePointer(key)}`, detail } : { parameter: key, detail });
  }
  return faults;
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles (once) and returns the validator for a schema object. */
export function validatorFor(schema: object): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(validatedSchema(schema));
    compiled.set(schema, fn);
  }
  return fn;
}

/**
 * Fastify's validator compiler: the route's TypeBox schema through ajv, strict query coercion, every
 * fault listed, text fields that no engine stores as sent refused; a validation problem otherwise.
 */
export function compileValidator({ schema, httpPart }: { schema: Schema; httpPart?: string }): (data: unknown) => { value?: unknown; error?: Error } {
  // Compiled on the route's first request, not at start: compiling every route's schemas made start-up
  // take seconds and held memory for routes an instance may never serve.
  let validate: ValidateFunction | undefined;
  const location = (httpPart ?? 'body') as Location;
  return (data: unknown) => {
    validate ??= validatorFor(schema);
    const input =
      (location === 'querystring' || location === 'params') && data && typeof data === 'object' ? coerceQuery(schema, data as Record<string, unknown>) : data;
    const faults = validate(input) ? textFaults(schema, input, location) : toFieldErrors(validate.errors ?? [], location);
    if (location === 'querystring') {
      // However a cursor is wrong, the one answer for it is "Cursor is malformed.", listed with
      // the query's other faults.
      const cursor = (input as { cursor?: unknown } | null)?.cursor;
      const junk = typeof cursor === 'string' && schema.properties?.cursor !== undefined && !cursorWellFormed(cursor);
      if (junk && !faults.some((f) => f.parameter === 'cursor')) faults.push({ parameter: 'cursor', detail: CURSOR_MALFORMED });
      for (const fault of faults) if (fault.parameter === 'cursor') fault.detail = CURSOR_MALFORMED;
    }
    if (faults.length === 0) return { value: input };
    return { error: problems.validation(faults) };
  };
}
