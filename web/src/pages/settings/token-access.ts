import { ROLE_SCOPES, type Scope } from '../../../../src/auth/roles.js';
import type { TokenRecord } from '../../types.js';

/**
 * The token form's presets of `scopes` (docs/tokens-and-access.md, Scoped tokens): everything the role
 * allows (not narrowed), what a viewer may read, or sending runs only (an exporter's, a CI job's).
 */
export const ACCESS_PRESETS = {
  role: { label: 'Everything your role allows', scopes: null },
  read: { label: 'Read-only', scopes: [...ROLE_SCOPES.viewer] },
  ingest: { label: 'Ingest-only (send runs and traces)', scopes: ['runs:write'] },
} as const satisfies Record<string, { label: string; scopes: readonly Scope[] | null }>;
export type AccessPreset = keyof typeof ACCESS_PRESETS;

/** What a token may do, in a word or two: its preset's name, else its scopes; and its projects. */
export function tokenAccess(token: Pick<TokenRecord, 'scopes' | 'projectIds'>, projectNames: Map<string, string>): string {
  const scopes = token.scopes;
  const preset =
    scopes === null
      ? 'Your role'
      : (Object.values(ACCESS_PRESETS).find((p) => p.scopes !== null && p.scopes.length === scopes.length && p.scopes.every((s) => scopes.includes(s)))
          ?.label ?? scopes.join(', '));
  if (token.projectIds === null) return preset;
  return `${preset.replace(/ \(.*\)$/, '')}; ${token.projectIds.map((id) => projectNames.get(id) ?? id).join(', ')}`;
}
