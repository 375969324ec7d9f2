/**
 * Wire types: the SDK's (`packages/client/src/types.ts`), each derived from the TypeBox schema the server
 * validates and serializes with. One derivation serves the SDK and the dashboard, so neither can drift
 * from the API; type-only, erased from the bundle.
 */
export type * from '../../packages/client/src/types.js';
