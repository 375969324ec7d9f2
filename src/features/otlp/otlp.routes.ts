import type { FastifyRequest } from 'fastify';
import type { App, Deps } from '../../deps.js';
import { sendJsonText } from '../../lib/http.js';
import { checkJsonCounts, utf8Text } from '../../lib/json-body.js';
import { problems } from '../../lib/problems.js';
import { MAX_OTLP_MESSAGES } from './otlp.bounds.js';
import { encodeOtlpResponse, readOtlpJson, readOtlpProtobuf } from './otlp.decode.js';
import { exportTraces } from './otlp.ingest.js';
import { ExportTraceServiceRequestBody, ExportTraceServiceResponseSchema, ExportTracesHeaders } from './otlp.schemas.js';

const LIMITS_TEXT =
  'Limits (README, OTLP limits): 100,000 spans, 200,000 resource attributes and 1,000,000 spans, attributes and values per request (413 past them, before anything is stored); ' +
  'a span of more than 50,000 attributes, values, events and links, and spans of projects past the creation bounds (`SIGHTLINE_OTLP_NEW_PROJECTS_PER_REQUEST`, `SIGHTLINE_OTLP_NEW_PROJECTS_PER_HOUR`), are counted in `partialSuccess`.';

/** What an OTLP/HTTP traces route is told apart by: its path, its operation, how it reads the request's project. */
export interface OtlpRouteOptions {
  url: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** Also takes `Basic base64(<project>:<token>)` (Langfuse's SDKs): the access hook's `credentialProject`. */
  basicCredentials?: boolean;
  /** The project every span of the request goes to, when the request names one. */
  projectOf: (request: FastifyRequest) => string | undefined;
}

/**
 * An OTLP/HTTP traces route: protobuf or JSON bytes decoded by the route itself, then the one OTLP
 * ingestion path (`exportTraces`, into the runs pipeline). `/v1/traces` and Langfuse's
 * `/api/public/otel/v1/traces` are two of these.
 */
export function otlpTracesRoute(app: App, { db, clock, config, runsStored }: Deps, options: OtlpRouteOptions): void {
  const limits = { perRequest: config.otlpNewProjectsPerRequest, perHour: config.otlpNewProjectsPerHour };
  app.post(options.url, {
    // The body reaches the handler as bytes (decompressed and admitted like any other): OTLP JSON keeps
    // 64-bit integers exact only when the route decodes it itself.
    config: { scope: 'runs:write', projects: 'routed', rawBody: true, ...(options.basicCredentials ? { basicCredentials: true } : {}) },
    schema: {
      operationId: options.operationId,
      tags: [options.tag],
      summary: options.summary,
      description: `${options.description} ${LIMITS_TEXT}`,
      headers: ExportTracesHeaders,
      body: ExportTraceServiceRequestBody,
      response: {
        200: {
          description: 'Stored (partly, when `partialSuccess` says so)',
          content: {
            'application/json': { schema: ExportTraceServiceResponseSchema },
            'application/x-protobuf': { schema: { type: 'string', format: 'binary', description: 'The same `ExportTraceServiceResponse`, as protobuf' } },
          },
        },
      },
    },
    handler: async (request, reply) => {
      const bytes = request.body as Buffer;
      const json = /^application\/json\b/i.test(request.headers['content-type'] ?? '');
      // Memory stays bounded by what decoding makes of the bytes, not only by their size (protobuf: counted
      // on the wire by readOtlpProtobuf before anything is decoded).
      if (json) checkJsonCounts(bytes, MAX_OTLP_MESSAGES, 2.5 * MAX_OTLP_MESSAGES);
      let text: string | null = null;
      if (json) {
        try {
          text = utf8Text(bytes);
        } catch {
          throw problems.validation([{ pointer: '', detail: 'The body is not valid UTF-8.' }]);
        }
      }
      const decoded = text !== null ? await readOtlpJson(text) : await readOtlpProtobuf(bytes);
      const partial = await exportTraces(db, request.principal, options.projectOf(request), decoded, clock.now(), limits, runsStored);
      if (json) return sendJsonText(reply, encodeOtlpResponse(partial, 'json') as string);
      return reply.type('application/x-protobuf').send(Buffer.from(encodeOtlpResponse(partial, 'protobuf')));
    },
  });
}

/** The `Sightline-Project` header, when the request carries one. */
export function projectHeader(request: FastifyRequest): string | undefined {
  const project = request.headers['sightline-project'];
  return typeof project === 'string' ? project : undefined;
}

export function otlpRoutes(app: App, deps: Deps): void {
  otlpTracesRoute(app, deps, {
    url: '/traces',
    operationId: 'exportTraces',
    tag: 'OpenTelemetry',
    summary: 'Receive spans over OTLP/HTTP',
    description:
      'The OTLP/HTTP traces endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` set to this server, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` to this URL): ' +
      'protobuf or JSON, optionally gzip or deflate. Each span is stored as a run (see the mapping in the README); a span exported again is kept once. ' +
      'The project is the `Sightline-Project` header (id or name), else per resource `sightline.project`, `openinference.project.name` or `service.name`, ' +
      'created on first use by members and up. Spans that cannot be stored are counted in `partialSuccess` and the rest are stored. ' +
      'Errors are problem documents rather than `google.rpc.Status`; exporters act on their status codes the same way (429 and 503 with `Retry-After` are retried).',
    projectOf: projectHeader,
  });
}
