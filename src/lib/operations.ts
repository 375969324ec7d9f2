import type { FastifySchema, RouteOptions } from 'fastify';
import { VALUE_PATTERN_BY_NAME } from './enforced-elsewhere.js';
import { problemResponses } from './problems.js';
import { HEADER_COMPONENTS, responseHeaders, type HeaderName } from './response-headers.js';

/** A group of operations in the API document (one per feature), declared once with its description. */
export interface ApiTag {
  name: string;
  description: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Response headers the route sets itself, by status (documented in the API document). */
    headers?: Partial<Record<number, readonly HeaderName[]>>;
  }
}

const OPERATION_ID = /^[a-z][A-Za-z0-9]*$/;

type Schema = { hide?: boolean; operationId?: unknown; tags?: unknown; response?: Record<number, unknown>; querystring?: { patternProperties?: object } };
type Operation = { operationId?: string; parameters?: object[]; responses?: Record<string, { headers?: Record<string, unknown> }> };
type Document = { tags?: ApiTag[]; components?: { headers?: Record<string, unknown> }; paths?: Record<string, Record<string, Operation>> };

/**
 * @fastify/swagger turns `patternProperties` into `additionalProperties` (an OpenAPI 3.0 habit) — in a
 * schema that refuses other properties, that documents any name as allowed. The route schemas are
 * handed to it with the keyword renamed, and `complete` names it back.
 */
const PATTERN_PROPERTIES = 'x-sightline-patternProperties';

/** The value with the key `from` named `to` at every depth: a route's schema stays one. */
function renamed(value: FastifySchema, from: string, to: string): FastifySchema;
function renamed(value: unknown, from: string, to: string): unknown;
function renamed(value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((item) => renamed(item, from, to));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key === from ? to : key, renamed(item, from, to)]));
}

/**
 * Query parameters named by a pattern (`metadata.<key>` filters), which @fastify/swagger leaves out:
 * one parameter per pattern, an object whose properties are sent as parameters of their own (form,
 * exploded), named after the pattern's literal start.
 */
function patternParameters(query: Schema['querystring']): object[] {
  return Object.entries(query?.patternProperties ?? {}).map(([pattern, raw]: [string, Record<string, unknown>]) => {
    // Values whose parameter name ends a certain way may have a pattern of their own (VALUE_PATTERN_BY_NAME).
    const { [VALUE_PATTERN_BY_NAME]: byName, ...value } = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
    const refined = Object.entries((byName ?? {}) as Record<string, string>).map(([ending, valuePattern]) => [ending, { ...value, pattern: valuePattern }]);
    return {
      in: 'query',
      name: /^\^([A-Za-z0-9_-]+)/.exec(pattern)?.[1] ?? 'parameters',
      required: false,
      style: 'form',
      explode: true,
      ...(typeof value.description === 'string' ? { description: value.description } : {}),
      schema: {
        type: 'object',
        propertyNames: { pattern },
        ...(refined.length > 0 ? { patternProperties: Object.fromEntries(refined) } : {}),
        additionalProperties: value,
      },
    };
  });
}

function methodsOf(route: RouteOptions): string[] {
  return [route.method].flat().map(String);
}

/**
 * The operations of the API document. Every documented route (one that is not `hide`) declares an
 * `operationId` (camelCase, unique in the document) and exactly one of the declared tags, or it does
 * not register; it is documented with the 500 problem every route can answer. When the document is
 * assembled, the tags are declared with their descriptions and every response references the headers
 * it carries (`responseHeaders`, from the route's declaration as the hooks left it).
 */
export class Operations {
  private readonly routes = new Map<string, RouteOptions>();
  private readonly tagNames: Set<string>;

  constructor(private readonly tags: readonly ApiTag[]) {
    this.tagNames = new Set(tags.map((tag) => tag.name));
  }

  /** The onRoute hook, registered before any route. */
  readonly declare = (route: RouteOptions): void => {
    const schema = (route.schema ?? {}) as Schema;
    if (schema.hide || methodsOf(route).every((method) => method === 'HEAD')) return;
    const where = `${methodsOf(route).join(',')} ${route.url}`;
    const { operationId, tags } = schema;
    if (typeof operationId !== 'string' || !OPERATION_ID.test(operationId)) {
      throw new Error(
        `${where} declares ${operationId === undefined ? 'no operationId' : `the operationId ${JSON.stringify(operationId)}`}: every documented route needs schema.operationId, camelCase (listRuns).`,
      );
    }
    const taken = this.routes.get(operationId);
    if (taken) throw new Error(`${where} declares the operationId ${operationId}, already declared by ${methodsOf(taken).join(',')} ${taken.url}.`);
    if (!Array.isArray(tags) || tags.length !== 1 || !this.tagNames.has(tags[0])) {
      throw new Error(`${where} declares the tags ${JSON.stringify(tags)}: every documented route needs exactly one of ${[...this.tagNames].join(', ')}.`);
    }
    this.routes.set(operationId, route);
    route.schema = { ...schema, response: { ...problemResponses(500), ...(schema.response ?? {}) } } as typeof route.schema;
  };

  /** A route's schema as the document describes it (@fastify/swagger's `transform`). */
  readonly transform = ({ schema, url }: { schema: FastifySchema; url: string }): { schema: FastifySchema; url: string } => ({
    schema: renamed(schema, 'patternProperties', PATTERN_PROPERTIES),
    url,
  });

  /** Completes the assembled document (@fastify/swagger's `transformObject`). */
  complete<T>(document: T): T {
    const doc = renamed(document, PATTERN_PROPERTIES, 'patternProperties') as Document;
    doc.tags = [...this.tags];
    doc.components = { ...doc.components, headers: HEADER_COMPONENTS };
    for (const operations of Object.values(doc.paths ?? {})) {
      for (const operation of Object.values(operations)) {
        const route = operation.operationId === undefined ? undefined : this.routes.get(operation.operationId);
        if (!route) continue;
        const extra = patternParameters((route.schema as Schema | undefined)?.querystring);
        if (extra.length > 0) operation.parameters = [...(operation.parameters ?? []), ...extra];
        const config = route.config ?? {};
        const facts = { authenticated: config.authenticated === true, limitedByAddress: !config.authenticated && !config.healthCheck, own: config.headers };
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const names = responseHeaders(facts, Number(status));
          response.headers = Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
        }
      }
    }
    return doc as T;
  }
}
