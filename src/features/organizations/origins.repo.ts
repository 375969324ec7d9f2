import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { OriginAllowList } from '../../lib/cors.js';
import { problems } from '../../lib/problems.js';
import { originFault, originQuota, validateOrigins } from './origins.js';
import { audited, cliActor } from '../../db/audit.js';

export async function listOrigins(db: Kysely<Database>, organizationId: string): Promise<string[]> {
  const rows = await db.selectFrom('organization_origins').select('origin').where('organization_id', '=', organizationId).orderBy('origin').execute();
  return rows.map((r) => r.origin);
}

/** The same, inside the caller's transaction (so a PATCH that also renames is all or nothing). */
export async function replaceOriginsIn(trx: Transaction<Database>, organizationId: string, plan: string, origins: string[], now: number): Promise<void> {
  validateOrigins(origins, '/allowedOrigins');
  const operator = new Set(
    (
      await trx.selectFrom('organization_origins').select('origin').where('organization_id', '=', organizationId).where('source', '=', 'operator').execute()
    ).map((r) => r.origin),
  );
  const counted = origins.filter((o) => !operator.has(o));
  const quota = originQuota(plan);
  if (counted.length > quota) {
    throw problems.validation([
      {
        pointer: '/allowedOrigins',
        detail: `The ${plan} plan allows at most ${quota} custom origin${quota === 1 ? '' : 's'}; ask your operator to allow-list more.`,
      },
    ]);
  }
  await trx.deleteFrom('organization_origins').where('organization_id', '=', organizationId).execute();
  if (origins.length > 0) {
    await trx
      .insertInto('organization_origins')
      .values(
        origins.map((origin) => ({
          organization_id: organizationId,
          origin,
          source: operator.has(origin) ? ('operator' as const) : ('organization' as const),
          created_at: now,
        })),
      )
      .execute();
  }
}

/** The operator's allow-listing (CLI): beyond the plan's quota. */
export async function addOperatorOrigin(db: Kysely<Database>, organizationId: string, origin: string, now: number): Promise<void> {
  const fault = originFault(origin);
  if (fault) throw problems.validation([{ parameter: 'origin', detail: fault }]);
  await audited(
    db,
    (trx) =>
      trx
        .insertInto('organization_origins')
        .values({ organization_id: organizationId, origin, source: 'operator', created_at: now })
        .onConflict((oc) => oc.columns(['organization_id', 'origin']).doUpdateSet({ source: 'operator' }))
        .execute(),
    () => ({
      organizationId,
      actor: cliActor(null),
      action: 'organization.updated',
      target: { type: 'organization', id: organizationId },
      details: { allowedOrigins: { added: [origin], removed: [], by: 'operator' } },
      at: now,
    }),
  );
}

/** True when some organization allows the origin (preflight requests are not authenticated). */
export async function isOriginAllowedAnywhere(db: Kysely<Database>, origin: string): Promise<boolean> {
  return !!(await db.selectFrom('organization_origins').select('organization_id').where('origin', '=', origin).limit(1).executeTakeFirst());
}

export async function isOriginAllowedFor(db: Kysely<Database>, organizationId: string, origin: string): Promise<boolean> {
  return !!(await db
    .selectFrom('organization_origins')
    .select('origin')
    .where('organization_id', '=', organizationId)
    .where('origin', '=', origin)
    .executeTakeFirst());
}

/** The organizations' origin lists, as CORS asks about them. */
export function originAllowList(db: Kysely<Database>): OriginAllowList {
  return {
    isAllowedAnywhere: (origin) => isOriginAllowedAnywhere(db, origin),
    isAllowedFor: (organizationId, origin) => isOriginAllowedFor(db, organizationId, origin),
  };
}
