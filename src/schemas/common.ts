import { Type, type ObjectOptions, type TProperties, type TSchema } from '@sinclair/typebox';
import { enforcedElsewhere } from '../lib/enforced-elsewhere.js';

/** A string enum as JSON Schema `enum` (one clear error message, a plain enum in OpenAPI). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Shared wire schemas: imported by the server (validation, serialization, OpenAPI) and by clients. */

// Patterns spell their character sets out: `\p{Cc}` is refused by Python's regular expressions, and
// `\s` and `.` mean other sets there than in JavaScript (whose meaning the validator applies).
/** JavaScript's `\s`: whitespace and line terminators. */
export const SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** Unicode's control characters (`\p{Cc}`). */
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
/** What JavaScript's `.` does not match. */
const LINE_END = '\\n\\r\\u2028\\u2029';

/** At least one character that is not whitespace. */
export const NOT_BLANK_PATTERN = `[^${SPACE}]`;
/** One line, without leading or trailing whitespace (JavaScript's `^\S(.*\S)?$`). */
export const TRIMMED_LINE_PATTERN = `^[^${SPACE}](?:[^${LINE_END}]*[^${SPACE}])?$`;
/** No control characters, no leading or trailing whitespace (`^[^\s\p{Cc}]([^\p{Cc}]*[^\s\p{Cc}])?$`). */
export const TRIMMED_TEXT_PATTERN = `^[^${SPACE}${CONTROL}](?:[^${CONTROL}]*[^${SPACE}${CONTROL}])?$`;

/**
 * An object of any keys (`Type.Record(Type.String(), value)`), with TypeBox's key pattern `^(.*)$`
 * spelled out as JavaScript reads it: a key without line terminators.
 */
export function KeyedRecord<T extends TSchema>(value: T, options: ObjectOptions = {}) {
  return Type.Record(Type.String({ pattern: `^[^${LINE_END}]*$` }), value, options);
}

/**
 * A record type of the API, named (`$id` and `title`) so that routes and pages refer to it as
 * `Type.Ref(name)` (`app.ts` registers it); no other fields than its own.
 */
export function NamedRecord<T extends TProperties>(name: string, properties: T) {
  return Type.Object(properties, { $id: name, title: name, additionalProperties: false });
}

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC, millisecond precision' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
/** When a record was created and last changed: the last two fields of every record that changes. */
export const recordTimes = { createdAt: Timestamp, updatedAt: Timestamp };

/** A name or label as people write it: 1 to `maxLength` characters, no control characters, no leading or trailing space. */
export function TrimmedText(maxLength: number, description: string) {
  return Type.String({ minLength: 1, maxLength, pattern: TRIMMED_TEXT_PATTERN, description });
}

/**
 * A path segment's value can be anything but `.` and `..`, which a URL cannot carry as a segment (clients and
 * the router read them as "this" and "the parent" path): stated for generators, which would send them.
 */
export const pathSegment = <T extends TSchema>(schema: T): T => enforcedElsewhere(schema, { not: { enum: ['.', '..'] } });

/**
 * Rules across fields that the route checks after the schema, with its own words (`if`/`then`/`else`,
 * `not`, `anyOf` over `required`): stated in the API document, where generators and fuzzers read them.
 */
export const acrossFields = <T extends TSchema>(schema: T, rules: { allOf?: object[]; not?: object; anyOf?: object[] }): T => enforcedElsewhere(schema, rules);

export function IdParam(prefix: string, description: string) {
  return pathSegment(Type.String({ minLength: 1, maxLength: 200, description, examples: [`${prefix}_01jd0000000000000000000000`] }));
}

export const RoleSchema = StringEnum(['owner', 'admin', 'member', 'viewer'] as const);

export const UserSchema = Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), createdAt: Timestamp }, { additionalProperties: false });

export const OrganizationSchema = Type.Object(
  { id: Type.String(), name: Type.String(), plan: Type.String(), createdAt: Timestamp },
  { additionalProperties: false },
);
