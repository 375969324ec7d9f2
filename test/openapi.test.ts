import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { declareV1Route } from '../src/auth/route-scope.js';
import { Operations } from '../src/lib/operations.js';
import { ProblemSchema } from '../src/lib/problems.js';
import { openApiDocument } from '../src/openapi.js';

/** The /v1 plugin's onRoute hook on a bare Fastify: `routes` registers inside it; what it made of each route is returned. */
async function v1With(routes: (v1: FastifyInstance) => void): Promise<Map<string, RouteOptions>> {
  const declared = new Map<string, RouteOptions>();
  const app = Fastify({ exposeHeadRoutes: false });
  await app.register(
    async (v1) => {
      v1.addHook('onRoute', declareV1Route);
      v1.addHook('onRoute', (route) => void declared.set(`${route.method} ${route.url}`, route));
      routes(v1);
    },
    { prefix: '/v1' },
  );
  await app.close();
  return declared;
}

const documented = (route: RouteOptions | undefined) => Object.keys((route?.schema as { response?: object } | undefined)?.response ?? {});

describe('OpenAPI document', () => {
  it('matches the committed openapi.json (regenerate with `npm run openapi`)', async () => {
    const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
    const generated = JSON.parse(JSON.stringify(await openApiDocument()));
    expect(generated).toEqual(committed);
  });

  it('is written by `sightline openapi` byte for byte as committed, through a pipe too', () => {
    // A pipe takes the 2 MB document in pieces: the CLI must not exit before the last one is written.
    const piped = execFileSync(process.execPath, [fileURLToPath(new URL('../bin/sightline.js', import.meta.url)), 'openapi'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(piped.length).toBeGreaterThan(200_000);
    expect(piped).toBe(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
  });

  it('is OpenAPI 3.1 and describes every /v1 route with a problem response and bearer security', async () => {
    const doc = (await openApiDocument()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const v1 = Object.entries(doc.paths).filter(([path]) => path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThanOrEqual(8);
    for (const [path, methods] of v1) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
        expect(op.responses['401']?.content?.['application/problem+json'], `${method} ${path} 401`).toBeDefined();
        const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
        expect(success.length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('/v1 route declarations', () => {
  it('a /v1 route that declares no scope does not register: the error names its method and URL', async () => {
    await expect(v1With((v1) => v1.get('/undeclared/:thing_id', async () => ({})))).rejects.toThrow(/^GET \/v1\/undeclared\/:thing_id declares no scope/);
    await expect(v1With((v1) => v1.route({ method: ['POST', 'PUT'], url: '/both', config: {}, handler: async () => ({}) }))).rejects.toThrow(
      /^POST,PUT \/v1\/both declares no scope/,
    );
  });

  it('a scope is typed: a misspelt one is a compile error (npm run typecheck), and an unknown one does not register', async () => {
    // @ts-expect-error 'runs:wirte' is no scope of the permission table
    const typo = (v1: FastifyInstance) => v1.get('/typo', { config: { scope: 'runs:wirte' } }, async () => ({}));
    await expect(v1With(typo)).rejects.toThrow('GET /v1/typo declares an unknown scope ("runs:wirte")');
  });

  it('documents the shared problems from the declaration, and keeps what the route lists for its own reasons', async () => {
    const routes = await v1With((v1) => {
      v1.get('/me-like', { config: { scope: 'self' } }, async () => ({}));
      v1.post(
        '/things/:thing_id',
        { config: { scope: 'runs:write' }, schema: { body: { type: 'object' }, response: { 409: { type: 'object' } } } },
        async () => ({}),
      );
    });
    expect(documented(routes.get('GET /v1/me-like'))).toEqual(['400', '401', '429', '503']);
    const post = routes.get('POST /v1/things/:thing_id');
    expect(documented(post)).toEqual(['400', '401', '403', '404', '408', '409', '413', '415', '429', '503']);
    expect((post?.schema?.response as Record<number, unknown>)[409]).toEqual({ type: 'object' });
    expect(post?.config).toMatchObject({ scope: 'runs:write', authenticated: true });
  });

  it('408, 413 and 415 on every method that carries a body, whether the route takes one or not; never on GET', async () => {
    const routes = await v1With((v1) => {
      v1.delete('/things/:thing_id', { config: { scope: 'runs:write' } }, async () => ({}));
      v1.post('/things/:thing_id/touch', { config: { scope: 'runs:write' } }, async () => ({}));
      v1.get('/things', { config: { scope: 'runs:read' } }, async () => ({}));
    });
    expect(documented(routes.get('DELETE /v1/things/:thing_id'))).toEqual(['400', '401', '403', '404', '408', '413', '415', '429', '503']);
    expect(documented(routes.get('POST /v1/things/:thing_id/touch'))).toEqual(['400', '401', '403', '404', '408', '413', '415', '429', '503']);
    expect(documented(routes.get('GET /v1/things'))).toEqual(['400', '401', '403', '429', '503']);
  });

  it('every /v1 route of the service declares a scope: 403 is documented exactly where it is not `self` (or where a narrowed token is refused)', async () => {
    const doc = (await openApiDocument()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    // `self` routes that never refuse: minting, rotating and revoking tokens refuse a narrowed token's widening (403).
    const selfRoutes = new Set(['get /v1/me', 'get /v1/tokens']);
    for (const [path, methods] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const [method, op] of Object.entries(methods)) {
        expect('403' in op.responses, `${method} ${path}`).toBe(!selfRoutes.has(`${method} ${path}`));
      }
    }
  });
});

/** The document's onRoute hook on a bare Fastify, with one declared tag. */
async function documentedWith(routes: (app: FastifyInstance) => void): Promise<Map<string, RouteOptions>> {
  const declared = new Map<string, RouteOptions>();
  const app = Fastify();
  app.addSchema(ProblemSchema);
  app.addHook('onRoute', new Operations([{ name: 'Things', description: 'Things.' }]).declare);
  app.addHook('onRoute', (route) => void declared.set(`${route.method} ${route.url}`, route));
  routes(app);
  await app.ready();
  await app.close();
  return declared;
}

describe('operations of the API document', () => {
  const handler = async () => ({});

  it('a documented route without an operationId, or with one that is not camelCase, does not register', async () => {
    await expect(documentedWith((app) => app.get('/things', { schema: { tags: ['Things'] } }, handler))).rejects.toThrow(
      /^GET \/things declares no operationId: every documented route needs schema.operationId/,
    );
    await expect(documentedWith((app) => app.get('/things', { schema: { operationId: 'list-things', tags: ['Things'] } }, handler))).rejects.toThrow(
      'GET /things declares the operationId "list-things"',
    );
  });

  it('an operationId declared twice does not register; the error names both routes', async () => {
    const twice = (app: FastifyInstance) => {
      app.get('/things', { schema: { operationId: 'listThings', tags: ['Things'] } }, handler);
      app.get('/other-things', { schema: { operationId: 'listThings', tags: ['Things'] } }, handler);
    };
    await expect(documentedWith(twice)).rejects.toThrow('GET /other-things declares the operationId listThings, already declared by GET /things.');
  });

  it('a documented route needs exactly one declared tag', async () => {
    for (const tags of [undefined, [], ['Stuff'], ['Things', 'Things']]) {
      await expect(documentedWith((app) => app.get('/things', { schema: { operationId: 'listThings', tags } }, handler))).rejects.toThrow(
        /^GET \/things declares the tags .*: every documented route needs exactly one of Things\.$/,
      );
    }
  });

  it('hidden routes and the HEAD twins of GET routes need nothing; a documented route gets the 500 problem', async () => {
    const routes = await documentedWith((app) => {
      app.get('/hidden', { schema: { hide: true } }, handler);
      app.get('/things', { schema: { operationId: 'listThings', tags: ['Things'], response: { 200: { type: 'object' } } } }, handler);
    });
    expect(documented(routes.get('GET /hidden'))).toEqual([]);
    expect(documented(routes.get('GET /things'))).toEqual(['200', '500']);
    expect(routes.has('HEAD /things')).toBe(true);
  });

  it('every operation of the service has a unique operationId and one tag the document declares with a description', async () => {
    const doc = (await openApiDocument()) as {
      tags: { name: string; description: string }[];
      paths: Record<string, Record<string, { operationId: string; tags: string[]; responses: Record<string, unknown> }>>;
    };
    const declared = new Set(doc.tags.map((tag) => tag.name));
    expect(doc.tags.every((tag) => tag.description.length > 0)).toBe(true);
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]*$/);
        expect(op.tags.length === 1 && declared.has(op.tags[0]!), `${method} ${path}`).toBe(true);
        expect(op.responses['500'], `${method} ${path}`).toBeDefined();
      }
    }
    // Every declared tag is used.
    expect(new Set(Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.tags[0])))).toEqual(declared);
  });
});
