/**
 * Every wire type of the API, derived from the TypeBox schemas the server validates and serializes
 * with (`src/features/*\/*.schemas.ts`): nothing here is a hand-copied shape, so a change to a server
 * schema changes these types (and breaks code that no longer fits). These are type-only imports: none
 * of the server's code ends up in the SDK's JavaScript. A published build carries the declarations
 * generated from the same schemas (see the package README): one `types.d.ts` of everything this file
 * exports, so its parts (`types-*.ts`: the derivation, the records, the quality loop) are source layout only.
 */
export type { FieldError, JsonObject, Page, ProblemDocument } from './types-base.js';
export type * from './types-records.js';
export type * from './types-quality.js';
