import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../deps.js';

/** The built dashboard (`vite build` → dist/web), the same path from src/ (tests) and from dist/. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/** Paths that belong to the API and the server, never to the dashboard's client-side routes. */
const SERVER_PATHS = /^\/(v1|auth|dev-idp|problems|docs|openapi\.json|healthz|readyz|\.well-known|assets)(\/|$|\?)/;

export interface Dashboard {
  /** Answers a browser's GET for a client-side route with index.html; false when it is not one. */
  fallback(request: FastifyRequest, reply: FastifyReply): boolean;
}

/**
 * Serves the dashboard at `/`: hashed assets (cached for a year) and index.html (never cached) for
 * every client-side route. It talks to the server only through the public /v1 API with the session
 * cookie. Without a build (dist/web), nothing is served and `/` is the usual 404 problem.
 */
export async function dashboardRoutes(app: App): Promise<Dashboard> {
  const indexFile = `${DASHBOARD_DIR}index.html`;
  if (!existsSync(indexFile)) return { fallback: () => false };
  // Re-read when the build changes (a rebuild while the server runs names new assets).
  let cached = { mtimeMs: -1, body: Buffer.alloc(0) };
  const index = () => {
    const { mtimeMs } = statSync(indexFile);
    if (mtimeMs !== cached.mtimeMs) cached = { mtimeMs, body: readFileSync(indexFile) };
    return cached.body;
  };
  await app.register(fastifyStatic, {
    root: `${DASHBOARD_DIR}assets`,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    immutable: true,
    maxAge: '365d',
  });
  const sendIndex = (reply: FastifyReply) => reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(index());
  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
  return {
    fallback(request, reply) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      const path = request.url.split('?')[0] ?? '';
      if (SERVER_PATHS.test(path) || !String(request.headers.accept ?? '').includes('text/html')) return false;
      sendIndex(reply);
      return true;
    },
  };
}
