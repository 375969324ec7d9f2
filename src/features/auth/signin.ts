import type { Kysely } from 'kysely';
import type { SignedInIdentity } from '../../auth/oidc.js';
import type { Database } from '../../db/schema.js';
import { acceptInvitations, createOrganization, ensureUser, firstOrganizationOf, setMembership } from '../organizations/index.js';

/**
 * Who a signed-in identity is, and in which organization its session works (docs/tokens-and-access.md, Sign-in): pending
 * invitations become memberships with the invited roles (the latest invitation's organization is
 * the one signed into); else the user's first organization; else a new organization of their own,
 * with the user as its owner.
 */
export async function resolveSignIn(
  db: Kysely<Database>,
  identity: SignedInIdentity,
  plan: string,
  now: number,
): Promise<{ userId: string; organizationId: string }> {
  const user = await ensureUser(db, identity.email, identity.name, now);
  // The user acts, signing in (their session is made after).
  const actor = { userId: user.id, credential: null };
  const joined = await acceptInvitations(db, user.id, user.email, now, actor);
  if (joined.length > 0) return { userId: user.id, organizationId: joined[joined.length - 1]! };
  const first = await firstOrganizationOf(db, user.id);
  if (first !== undefined) return { userId: user.id, organizationId: first };
  const organizationId = await createOrganization(db, `${identity.name}'s organization`, plan, now);
  await setMembership(db, organizationId, user.id, 'owner', now, actor);
  return { userId: user.id, organizationId };
}
