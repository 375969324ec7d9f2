import { Type } from '@sinclair/typebox';
import { ping } from '../../db/index.js';
import type { App, Deps } from '../../deps.js';
import { PROBLEM_TYPES, Problem, problemResponses, type ProblemSlug } from '../../lib/problems.js';

const tags = ['Operations'];
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Unauthenticated operational routes: health, readiness, JWKS, OpenAPI, problem type pages. */
export function systemRoutes(app: App, { db, keys, shedding }: Deps): void {
  // Neither is ever shed: liveness answers even while the instance is overloaded or draining, and
  // readiness says 503 then, so that a load balancer routes around the instance until it recovers.
  app.get('/healthz', {
    config: { healthCheck: true },
    schema: {
      operationId: 'checkLiveness',
      tags,
      summary: 'Liveness: the process is up',
      description: 'Answers while the process runs, even when it is overloaded or shutting down. Never rate-limited.',
      response: { 200: Type.Object({ status: Type.Literal('ok') }) },
    },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/readyz', {
    config: { healthCheck: true },
    schema: {
      operationId: 'checkReadiness',
      tags,
      summary: 'Readiness: the database is reachable and the instance is not shedding load',
      description:
        'A 503 while the instance sheds load, shuts down or cannot reach its database: route traffic elsewhere until it answers 200. Never rate-limited.',
      response: { 200: Type.Object({ status: Type.Literal('ok') }), ...problemResponses(503) },
    },
    handler: async (request) => {
      const refusal = shedding.refusal(request);
      if (refusal) throw shedding.problem(refusal);
      try {
        await ping(db);
      } catch {
        throw new Problem('service-unavailable', { detail: 'The database is not reachable.' });
      }
      return { status: 'ok' as const };
    },
  });

  app.get('/.well-known/jwks.json', {
    schema: {
      operationId: 'getJwks',
      tags,
      summary: 'Public keys that verify Sightline-issued JWTs',
      description: 'A JSON Web Key Set; cacheable for five minutes. Rate-limited per client address, like every route outside /v1 but the health checks.',
      response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }), ...problemResponses(429, 503) },
    },
    config: { headers: { 200: ['Cache-Control'] } },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return keys.publicJwks();
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/problems/:slug', { schema: { hide: true, params: Type.Object({ slug: Type.String({ maxLength: 64 }) }) } }, async (request, reply) => {
    const slug = request.params.slug as ProblemSlug;
    const entry = Object.hasOwn(PROBLEM_TYPES, slug) ? PROBLEM_TYPES[slug] : undefined;
    if (!entry) throw new Problem('not-found', { detail: `No problem type named ${request.params.slug}.` });
    const html = `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(entry.title)} — Sightline</title>
<body style="font-family:system-ui;max-width:40rem;margin:3rem auto"><h1>${escapeHtml(entry.title)}</h1>
<p>HTTP status ${entry.status}. Problem type <code>${escapeHtml(slug)}</code>.</p><p>${escapeHtml(entry.about)}</p>
<p><a href="/docs">API reference</a></p></body></html>`;
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
