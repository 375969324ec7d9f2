import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { OriginAllowList } from '../../lib/cors.js';
import { problems, type FieldError } from '../../lib/problems.js';
import { PLAN_ORIGIN_QUOTA } from './organizations.schemas.js';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])$`);

/**
 * An allowed origin is exact: `https://host[:port]`, or `http://localhost:<port>` for local development.
 * No paths, wildcards, credentials or trailing slashes; the host is compared as the URL parser writes it.
 */
export function originFault(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be an origin such as https://app.example.com.';
  }
  if (url.origin !== value) return 'Must be exactly an origin (scheme, host and optional port; no path, slash or credentials, lower case).';
  // The URL parser lets `*`, `_` and the like through in a host: an origin names one host, never a pattern.
  if (!HOST.test(url.hostname)) return 'The host must be a plain DNS name or IP address (no wildcards).';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && url.hostname === 'localhost') return null;
  return 'Must use https (http is allowed only for localhost).';
}

export function validateOrigins(origins: string[], pointer: string): void {
  const faults: FieldError[] = [];
  origins.forEach((origin, i) => {
    const fault = originFault(origin);
    if (fault) faults.push({ pointer: `${pointer}/${i}`, detail: fault });
  });
  if (faults.length > 0) throw problems.validation(faults);
}

export function originQuota(plan: string): number {
  return PLAN_ORIGIN_QUOTA[plan] ?? 0;
}

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
  await db
    .insertInto('organization_origins')
    .values({ organization_id: organizationId, origin, source: 'operator', created_at: now })
    .onConflict((oc) => oc.columns(['organization_id', 'origin']).doUpdateSet({ source: 'operator' }))
    .execute();
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
