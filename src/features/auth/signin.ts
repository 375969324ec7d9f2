import type { Kysely } from 'kysely';
import type { SignedInIdentity } from '../../auth/oidc.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { acceptInvitations } from '../organizations/invitations.repo.js';
import { ensureUser, setMembership } from '../organizations/organizations.repo.js';

/**
 * Who a signed-in identity is, and in which organization its session works (README, Sign-in): pending
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
  const joined = await acceptInvitations(db, user.id, user.email, now);
  if (joined.length > 0) return { userId: user.id, organizationId: joined[joined.length - 1]! };
  const membership = await db
    .selectFrom('memberships')
    .select('organization_id')
    .where('user_id', '=', user.id)
    .orderBy('created_at')
    .orderBy('organization_id')
    .executeTakeFirst();
  if (membership) return { userId: user.id, organizationId: membership.organization_id };
  const organizationId = await createOwnOrganization(db, `${identity.name}'s organization`, plan, now);
  await setMembership(db, organizationId, user.id, 'owner', now);
  return { userId: user.id, organizationId };
}

/** Organization names are unique: a taken one gets the new id appended. */
async function createOwnOrganization(db: Kysely<Database>, name: string, plan: string, now: number): Promise<string> {
  const id = newId('org', now);
  try {
    await db.insertInto('organizations').values({ id, name, plan, created_at: now }).execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await db
      .insertInto('organizations')
      .values({ id, name: `${name} (${id})`, plan, created_at: now })
      .execute();
  }
  return id;
}
