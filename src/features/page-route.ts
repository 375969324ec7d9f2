import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { RouteScope } from '../auth/hook.js';
import type { Principal } from '../auth/tokens.js';
import type { ProjectScope } from '../db/scope.js';
import type { App } from '../deps.js';
import { problemResponses } from '../lib/problems.js';
import { PageOnlyQuery, paginate, type CursorCodec, type KeysetRows, type ListIdentity, type PageRequest, type Position } from '../lib/pagination.js';

/** Which list a request reads: its cursor binding and how to fetch its rows (`keysetPage`). */
export interface ListSource<Row> {
  identity: ListIdentity;
  fetch: (after: Position | null, take: number) => Promise<KeysetRows<Row>>;
}

/** A list of the caller's organization, bound to it alone: `list` fetches it by the organization's id. */
export function organizationList<Row>(
  endpoint: string,
  list: (organizationId: string, after: Position | null, take: number) => Promise<KeysetRows<Row>>,
): (request: { principal: Principal }) => Promise<ListSource<Row>> {
  return async ({ principal: { organizationId } }) => ({
    identity: { endpoint, organizationId },
    fetch: (after, take) => list(organizationId, after, take),
  });
}

/**
 * A list of the caller's organization narrowed by filters: its query but `limit` and `cursor`, which bind
 * its cursors as they are; `list` fetches it by the organization's id and those filters.
 */
export function filteredOrganizationList<Row, Query extends PageRequest>(
  endpoint: string,
  list: (organizationId: string, filters: Omit<Query, keyof PageRequest>, after: Position | null, take: number) => Promise<KeysetRows<Row>>,
): (request: { principal: Principal; query: Query }) => Promise<ListSource<Row>> {
  return async ({ principal: { organizationId }, query: { limit: _limit, cursor: _cursor, ...filters } }) => ({
    identity: { endpoint, organizationId, filters },
    fetch: (after, take) => list(organizationId, filters, after, take),
  });
}

/** A request under `/projects/:project_id`: the caller and the project the path names. */
type ProjectRequest = { principal: Principal; params: { project_id: string } };

/** A list of the project the path names, bound to it: `scope` resolves the project (its 404 first), `list` fetches by it. */
export function projectList<Row>(
  endpoint: string,
  scope: (request: ProjectRequest) => Promise<ProjectScope>,
  list: (scope: ProjectScope, after: Position | null, take: number) => Promise<KeysetRows<Row>>,
): (request: ProjectRequest) => Promise<ListSource<Row>> {
  return async (request) => {
    const project = await scope(request);
    return {
      identity: { endpoint, organizationId: project.organizationId, parents: [project.projectId] },
      fetch: (after, take) => list(project, after, take),
    };
  };
}

/**
 * A list under a parent that the path names: `parent` loads it (the 404 when it is not the caller's
 * organization's) and gives its id and the ids the cursor is bound to; `list` fetches by the parent's id.
 */
export function childList<Params, Row>(
  endpoint: string,
  parent: (organizationId: string, params: Params) => Promise<{ id: string; parents: string[] }>,
  list: (parentId: string, after: Position | null, take: number) => Promise<KeysetRows<Row>>,
): (request: { principal: Principal; params: Params }) => Promise<ListSource<Row>> {
  return async ({ principal: { organizationId }, params }) => {
    const { id, parents } = await parent(organizationId, params);
    return { identity: { endpoint, organizationId, parents }, fetch: (after, take) => list(id, after, take) };
  };
}

/** A list endpoint's scope, documentation and schemas: its params and query (`limit` and `cursor` alone unless given) and its page. */
export interface PageDeclaration<Params extends TObject, Query extends TObject> {
  scope: RouteScope;
  /** How the list serves a token narrowed to projects, when its path names none (the access hook's `config.projects`). */
  projects?: 'listed';
  operationId: string;
  summary: string;
  description?: string;
  params?: Params;
  querystring?: Query;
  page: TSchema;
  /** The problems the list answers for its own reasons (a 404 for what its query names); `declareV1Route` documents the shared ones. */
  problems?: number[];
}

/** Which list a request reads, from its caller, path and query: it checks the path (404s first). */
export type PageSource<Row, Params extends TObject, Query extends TObject> = (request: {
  principal: Principal;
  params: Static<Params>;
  query: Static<Query> & PageRequest;
}) => Promise<ListSource<Row>>;

/**
 * The declaration of a list endpoint whose items map one by one: the route's scope and documentation,
 * its params and query (`limit` and `cursor` alone unless a list query is given), `source` (which
 * checks the path, 404s first, and names the list) and `toItem`; the page goes through `paginate`.
 */
export function pageRoute<Row, Item, Params extends TObject = TObject<Record<string, never>>, Query extends TObject = typeof PageOnlyQuery>(
  app: App,
  cursors: CursorCodec,
  path: string,
  route: PageDeclaration<Params, Query> & { tags: string[] },
  source: PageSource<Row, Params, Query>,
  toItem: (row: Row) => Item,
): void {
  const { scope, projects, page, params, querystring, problems = [], ...docs } = route;
  app.get(path, {
    config: { scope, ...(projects ? { projects } : {}) },
    schema: { ...docs, ...(params ? { params } : {}), querystring: querystring ?? PageOnlyQuery, response: { 200: page, ...problemResponses(...problems) } },
    handler: async (request) => {
      // Validated against `params` and `querystring` by the route's schema before the handler runs.
      const { params: pathParams, query } = request as { params: unknown; query: unknown };
      const list = await source({ principal: request.principal, params: pathParams as Static<Params>, query: query as Static<Query> & PageRequest });
      return paginate(cursors, query as PageRequest, list.identity, list.fetch, toItem);
    },
  });
}
