import type { FastifyRequest } from 'fastify';
import type { App, Deps } from '../../deps.js';
import { problems } from '../../lib/problems.js';
import { otlpTracesRoute, ProjectRouter, projectHeader } from '../otlp/index.js';
import { ingestLangfuseBatch } from './langfuse.ingestion.js';
import { IngestionBodySchema, IngestionResultSchema, MAX_EVENTS } from './langfuse.schemas.js';

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
  const { db, clock, config, runsStored } = deps;
  app.post('/ingestion', {
    config: { scope: 'runs:write', projects: 'routed', basicCredentials: true },
    schema: {
      operationId: 'ingestLangfuseBatch',
      tags: ['Langfuse'],
      summary: 'Receive a batch of events from Langfuse’s SDKs and integrations',
      description:
        'Langfuse’s batch ingestion API, what the `langfuse` JavaScript SDK (v3) and integrations built on Langfuse’s older SDKs post to. ' +
        '`Authorization: Basic` with the project (id or name; created on first use by members and up) as the public key and a token that may write runs as the secret key ' +
        '(a bearer token with the `Sightline-Project` header is taken too). ' +
        `Up to ${MAX_EVENTS.toLocaleString('en-US')} events: \`trace-create\`, \`span-create\` and \`-update\`, \`generation-create\` and \`-update\`, \`event-create\`, \`observation-create\` and \`-update\`, ` +
        '`agent-`, `tool-`, `chain-`, `retriever-`, `evaluator-`, `embedding-` and `guardrail-create`, `score-create` (needs `scores:write`) and `sdk-log` (not stored). ' +
        'A trace is its root run; an observation a run under it (or under its parent observation); the events about one of them are merged onto what is stored of it, as Langfuse merges them (docs/langfuse.md). ' +
        'The answer is 207 with each event a success (201) or an error of its own (the status it alone would have had, the problem’s detail and field errors); a bad event does not sink the others, and a batch sent again stores nothing twice.',
      body: IngestionBodySchema,
      response: { 207: { description: 'Each event’s outcome', ...IngestionResultSchema } },
    },
    handler: async (request, reply) => {
      const name = langfuseProject(request)?.trim();
      if (!name)
        throw problems.validation([
          {
            parameter: 'Authorization',
            detail: 'Name the project: as the public key of a Basic credential, or in the Sightline-Project header with a bearer token.',
          },
        ]);
      const limits = { perRequest: config.otlpNewProjectsPerRequest, perHour: config.otlpNewProjectsPerHour };
      const project = await new ProjectRouter(db, request.principal, clock.now(), limits).resolve(name);
      const batch = request.body.batch as unknown[];
      const answer =
        'refused' in project
          ? {
              successes: [],
              errors: batch.map((event) => ({ id: String((event as { id?: unknown }).id ?? ''), status: 429, message: project.refused })),
            }
          : await ingestLangfuseBatch(db, request.principal, project.id, batch, clock.now(), runsStored);
      return reply.code(207).send(answer);
    },
  });

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
