import { Type } from '@sinclair/typebox';

/** A string enum as JSON Schema `enum` (one clear error message, a plain enum in OpenAPI). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Shared wire schemas: imported by the server (validation, serialization, OpenAPI) and by clients. */

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC, millisecond precision' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export function IdParam(prefix: string, description: string) {
  return Type.String({ minLength: 1, maxLength: 200, description, examples: [`${prefix}_01jd0000000000000000000000`] });
}

export const RoleSchema = StringEnum(['owner', 'admin', 'member', 'viewer'] as const);

export const UserSchema = Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), createdAt: Timestamp }, { additionalProperties: false });

export const OrganizationSchema = Type.Object(
  { id: Type.String(), name: Type.String(), plan: Type.String(), createdAt: Timestamp },
  { additionalProperties: false },
);
