import type { FastifyRequest } from 'fastify';
import type { App, Deps } from '../../deps.js';
import { otlpTracesRoute, projectHeader } from '../otlp/index.js';

/**
 * The project of a request from a Langfuse SDK: the public key (the user of its Basic credential), else
 * what a bearer-authenticated request names, as on `/v1/traces`.
 */
function langfuseProject(request: FastifyRequest): string | undefined {
  const key = request.credentialProject;
  return key !== undefined && key.trim() !== '' ? key : projectHeader(request);
}

/** Langfuse's public API paths its SDKs send to, under `/api/public` (docs/langfuse.md). */
export function langfuseRoutes(app: App, deps: Deps): void {
  otlpTracesRoute(app, deps, {
    url: '/otel/v1/traces',
    operationId: 'exportLangfuseTraces',
    tag: 'Langfuse',
    summary: 'Receive spans from Langfuse’s OpenTelemetry-based SDKs',
    description:
      'What `LangfuseSpanProcessor` (`@langfuse/otel`) exports to, with `LANGFUSE_BASE_URL` set to this server: ' +
      '`Authorization: Basic` with the project (id or name) as the public key and a token that may write runs as the secret key ' +
      '(a bearer token and the `Sightline-Project` header are taken too). The same OTLP/HTTP receiver as `POST /v1/traces`, protobuf or JSON, ' +
      'with `langfuse.observation.*` and `langfuse.trace.*` attributes mapped as docs/langfuse.md shows.',
    basicCredentials: true,
    projectOf: langfuseProject,
  });
}
