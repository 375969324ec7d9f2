import { Type, type Static, type TObject, type TSchema, type TUnknown } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteScope } from '../auth/hook.js';
import type { Principal } from '../auth/tokens.js';
import type { App } from '../deps.js';
import { sendWithEtag } from '../lib/http.js';
import type { CursorCodec, PageOnlyQuery } from '../lib/pagination.js';
import { problemResponses } from '../lib/problems.js';
import { pageRoute, type PageDeclaration, type PageSource } from './page-route.js';

type NoSchema = TObject<Record<string, never>>;

/** A route's need (the scope the access hook checks), its documentation and its schemas; its tags are the kit's. */
export interface RouteDeclaration<Params extends TObject, Query extends TObject, Body extends TSchema> {
  scope: RouteScope;
  /** A route that mints credentials: the stricter per-user limit of the access hook. */
  mintsTokens?: true;
  operationId: string;
  summary: string;
  description: string;
  params?: Params;
  querystring?: Query;
  body?: Body;
  /** The problems the route answers for its own reasons (409, …); `declareV1Route` documents the shared ones. */
  problems?: number[];
}

/**
 * What a 200 or 201 answers: its schema, or the name of a shared one (`Type.Ref`); with `etag`, the answer
 * carries its body's ETag and is a 304 while `If-None-Match` holds it (`sendWithEtag`: clients poll cheaply).
 */
type Answer = { answer: TSchema | string; etag?: true };

const NOT_MODIFIED = { 304: Type.Null({ description: 'Not modified (If-None-Match)' }) };
const ETAG_HEADERS = { 200: ['ETag'], 304: ['ETag'] } as const;

/** What a kit's handler reads of its request: the caller, and the path, query and body its schemas validated. */
export interface Checked<Params extends TSchema, Query extends TSchema, Body extends TSchema> {
  principal: Principal;
  params: Static<Params>;
  query: Static<Query>;
  body: Static<Body>;
}

type Handler<Params extends TObject, Query extends TObject, Body extends TSchema> = (request: Checked<Params, Query, Body>) => Promise<unknown>;

/**
 * The declarations of a feature's routes whose answer is one schema: `get`, `post`, `put` and `patch`
 * answer 200 with what the handler returns, `create` 201, `delete` 204 with no body (its description
 * `outcome`, "Deleted" unless given); `page` is `pageRoute`. Each is the route's scope, documentation
 * and schemas, and a handler of the validated request; the kit adds the tags and the response schemas.
 */
export function routeKit(app: App, { tags, cursors }: { tags: string[]; cursors: CursorCodec }) {
  function declare<Params extends TObject, Query extends TObject, Body extends TSchema>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    status: 200 | 201 | 204,
    route: RouteDeclaration<Params, Query, Body> & Pick<Answer, 'etag'>,
    answer: TSchema,
    handler: Handler<Params, Query, Body>,
  ): void {
    const { scope, mintsTokens, etag, params, querystring, body, problems = [], ...docs } = route;
    app.route({
      method,
      url: path,
      config: { scope, ...(mintsTokens ? { mintsTokens } : {}), ...(etag ? { headers: ETAG_HEADERS } : {}) },
      schema: {
        ...docs,
        tags,
        ...(params ? { params } : {}),
        ...(querystring ? { querystring } : {}),
        ...(body ? { body } : {}),
        response: { [status]: answer, ...(etag ? NOT_MODIFIED : {}), ...problemResponses(...problems) },
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        // Validated against the route's params, querystring and body by its schemas before the handler runs.
        const checked = request as Checked<Params, Query, Body>;
        if (etag) return sendWithEtag(request, reply, await handler(checked));
        if (status === 200) return handler(checked);
        if (status === 201) return reply.code(201).send(await handler(checked));
        await handler(checked);
        return reply.code(204).send(null);
      },
    });
  }
  const schemaOf = (answer: TSchema | string) => (typeof answer === 'string' ? Type.Ref(answer) : answer);
  const answering =
    (method: 'GET' | 'POST' | 'PUT' | 'PATCH', status: 200 | 201) =>
    <Params extends TObject = NoSchema, Query extends TObject = NoSchema, Body extends TSchema = TUnknown>(
      path: string,
      route: RouteDeclaration<Params, Query, Body> & Answer,
      handler: Handler<Params, Query, Body>,
    ): void => {
      const { answer, ...declared } = route;
      declare(method, path, status, declared, schemaOf(answer), handler);
    };

  return {
    get: answering('GET', 200),
    post: answering('POST', 200),
    put: answering('PUT', 200),
    patch: answering('PATCH', 200),
    create: answering('POST', 201),
    delete: <Params extends TObject = NoSchema>(
      path: string,
      route: RouteDeclaration<Params, NoSchema, TUnknown> & { outcome?: string },
      handler: Handler<Params, NoSchema, TUnknown>,
    ): void => {
      const { outcome = 'Deleted', ...declared } = route;
      declare('DELETE', path, 204, declared, Type.Null({ description: outcome }), handler);
    },
    page: <Row, Item, Params extends TObject = NoSchema, Query extends TObject = typeof PageOnlyQuery>(
      path: string,
      route: PageDeclaration<Params, Query>,
      source: PageSource<Row, Params, Query>,
      toItem: (row: Row) => Item,
    ): void => pageRoute(app, cursors, path, { ...route, tags }, source, toItem),
  };
}
