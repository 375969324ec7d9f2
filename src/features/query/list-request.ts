import type { Kysely } from 'kysely';
import type { Principal } from '../../auth/tokens.js';
import type { Database, ProjectRow } from '../../db/schema.js';
import type { Dialect } from '../../db/dialect.js';
import type { KeysetRows, ListIdentity, PageRequest, Position } from '../../lib/pagination.js';
import { requestedProject } from '../projects/index.js';
import { parseRunFilters, type RunFilters } from './filters.js';

/**
 * What a list filtered like the runs list reads from its request: the project (404 when not the
 * caller's), the filters, the page asked for, and the identity its cursors are bound to.
 */
export async function filteredListRequest(
  db: Kysely<Database>,
  request: { principal: Principal; params: { project_id: string }; query: unknown },
  endpoint: string,
): Promise<{ project: ProjectRow; filters: RunFilters; page: PageRequest; identity: ListIdentity }> {
  const project = await requestedProject(db, request);
  const { limit, cursor, ...rest } = request.query as Record<string, unknown> & PageRequest;
  const filters = parseRunFilters(rest);
  return {
    project,
    filters,
    page: { limit, cursor },
    identity: { endpoint, organizationId: request.principal.organizationId, parents: [project.id], filters: { ...filters } },
  };
}

/** A list filtered like the runs list, as `paginate` fetches it: `take` rows of a project's after a position. */
export type FilteredList<Row> = (
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  filters: RunFilters,
  after: Position | null,
  take: number,
) => Promise<KeysetRows<Row>>;
