import type { Kysely } from 'kysely';
import type { Principal } from '../../auth/tokens.js';
import type { Database, ProjectRow } from '../../db/schema.js';
import type { Dialect } from '../../db/dialect.js';
import type { KeysetRows, ListIdentity, ListOrder, PageRequest, Position } from '../../lib/pagination.js';
import { requestedProject } from '../projects/index.js';
import { parseRunFilters, type RunFilters } from './filters.js';

/**
 * What a list filtered like the runs list reads from its request: the project (404 when not the
 * caller's), the filters, the order (`desc` unless the list takes `order` and it was asked), the page
 * asked for, and the identity its cursors are bound to (the order with the filters: a cursor continues
 * only the order it was given in).
 */
export async function filteredListRequest(
  db: Kysely<Database>,
  request: { principal: Principal; params: { project_id: string }; query: unknown },
  endpoint: string,
): Promise<{ project: ProjectRow; filters: RunFilters; order: ListOrder; page: PageRequest; identity: ListIdentity }> {
  const project = await requestedProject(db, request);
  const { limit, cursor, order, ...rest } = request.query as Record<string, unknown> & PageRequest & { order?: ListOrder };
  const filters = parseRunFilters(rest);
  // Newest first binds nothing more: cursors given before lists took `order` go on working.
  const bound = order === 'asc' ? { ...filters, order } : { ...filters };
  return {
    project,
    filters,
    order: order ?? 'desc',
    page: { limit, cursor },
    identity: { endpoint, organizationId: request.principal.organizationId, parents: [project.id], filters: bound },
  };
}

/** A list filtered like the runs list, as `paginate` fetches it: `take` rows of a project's after a position, in `order` (newest first by default). */
export type FilteredList<Row> = (
  db: Kysely<Database>,
  dialect: Dialect,
  projectId: string,
  filters: RunFilters,
  after: Position | null,
  take: number,
  order?: ListOrder,
) => Promise<KeysetRows<Row>>;
