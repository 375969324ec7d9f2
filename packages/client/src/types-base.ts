/**
 * How the SDK's wire types are derived from the server's TypeBox schemas (`Static`, with free-form
 * objects as `JsonObject`), and the envelopes every resource shares: problems and pages. The other
 * `types-*.ts` files derive a tier's types each (records, the quality loop); `types.ts` gathers what
 * the SDK publishes.
 */
import type { Static as SchemaStatic, TSchema } from '@sinclair/typebox';
import type { Page as ServerPage } from '../../../src/lib/pagination.js';
import type { FieldErrorSchema, ProblemSchema } from '../../../src/lib/problems.js';

/** The query parameters of every list that `Paginated` sets itself. */
export type PageParams = 'limit' | 'cursor';

/** Any JSON object (`inputs`, `outputs`, `metadata`, `config`: free-form objects in the schemas). */
export type JsonObject = { [key: string]: unknown };
/** A schema's static type, with free-form objects (`{}` in TypeBox) as `JsonObject`. */
type Refine<T> = T extends string | number | boolean | bigint | null | undefined
  ? T
  : T extends readonly (infer U)[]
    ? Refine<U>[]
    : T extends object
      ? keyof T extends never
        ? JsonObject
        : { [K in keyof T]: Refine<T[K]> }
      : T;
export type Static<S extends TSchema> = Refine<SchemaStatic<S>>;

// Problems and pages
export type ProblemDocument = Static<typeof ProblemSchema>;
export type FieldError = Static<typeof FieldErrorSchema>;
/** The page envelope of every list: `nextCursor` absent or null on the last page. */
export type Page<T> = Omit<ServerPage<T>, 'nextCursor'> & { nextCursor?: string | null };
