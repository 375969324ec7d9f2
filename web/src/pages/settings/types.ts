/** Wire types of the settings page, derived from the server's own schemas (type-only: erased from the bundle). */
import type { Static } from '@sinclair/typebox';
import type {
  InvitationSchema,
  MemberSchema,
  OrganizationDetailSchema,
  OrganizationTokenSchema,
} from '../../../../src/features/organizations/organizations.schemas.js';
import type { NewTokenSchema, TokenRecordSchema } from '../../../../src/features/tokens/tokens.schemas.js';

export type TokenRecord = Static<typeof TokenRecordSchema>;
export type NewToken = Static<typeof NewTokenSchema>;
export type OrganizationToken = Static<typeof OrganizationTokenSchema>;
export type Member = Static<typeof MemberSchema>;
export type Invitation = Static<typeof InvitationSchema>;
export type OrganizationDetail = Static<typeof OrganizationDetailSchema>;

export type TokenStatus = 'active' | 'revoked' | 'expired';

/** Revoked wins over expired: a revoked token stays revoked whatever its expiry. */
export function tokenStatus(token: { revokedAt: string | null; expiresAt: string }, now = Date.now()): TokenStatus {
  if (token.revokedAt) return 'revoked';
  if (Date.parse(token.expiresAt) <= now) return 'expired';
  return 'active';
}
