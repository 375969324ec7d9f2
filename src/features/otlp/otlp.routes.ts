import type { App, Deps } from '../../deps.js';
import { sendJsonText } from '../../lib/http.js';
import { checkJsonCounts, utf8Text } from '../../lib/json-body.js';
import { problems } from '../../lib/problems.js';
import { MAX_OTLP_MESSAGES } from './otlp.bounds.js';
import { encodeOtlpResponse, readOtlpJson, readOtlpProtobuf } from './otlp.decode.js';
import { exportTraces } from './otlp.ingest.js';
import { ExportTraceServiceRequestBody, ExportTraceServiceResponseSchema, ExportTracesHeaders } from './otlp.schemas.js';

export function otlpRoutes(app: App, { db, clock, config, runsStored }: Deps): void {
  const limits = { perRequest: config.otlpNewProjectsPerRequest, perHour: config.otlpNewProjectsPerHour };
  app.post('/traces', {
    // The body reaches the handler as bytes (decompressed and admitted like any other): OTLP JSON keeps
    // 64-bit integers exact only when the route decodes it itself.
    config: { scope: 'runs:write', rawBody: true },
    schema: {
      operationId: 'exportTraces',
      tags: ['OpenTelemetry'],
      summary: 'Receive spans over OTLP/HTTP',
      description:
        'The OTLP/HTTP traces endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` set to this server, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` to this URL): ' +
        'protobuf or JSON, optionally gzip or deflate. Each span is stored as a run (see the mapping in the README); a span exported again is kept once. ' +
        'The project is the `Sightline-Project` header (id or name), else per resource `sightline.project`, `openinference.project.name` or `service.name`, ' +
        'created on first use by members and up. Spans that cannot be stored are counted in `partialSuccess` and the rest are stored. ' +
        'Errors are problem documents rather than `google.rpc.Status`; exporters act on their status codes the same way (429 and 503 with `Retry-After` are retried). ' +
        'Limits (README, OTLP limits): 100,000 spans, 200,000 resource attributes and 1,000,000 spans, attributes and values per request (413 past them, before anything is stored); ' +
        'a span of more than 50,000 attributes, values, events and links, and spans of projects past the creation bounds (`SIGHTLINE_OTLP_NEW_PROJECTS_PER_REQUEST`, `SIGHTLINE_OTLP_NEW_PROJECTS_PER_HOUR`), are counted in `partialSuccess`.',
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
      const project = request.headers['sightline-project'];
      const partial = await exportTraces(db, request.principal, typeof project === 'string' ? project : undefined, decoded, clock.now(), limits, runsStored);
      if (json) return sendJsonText(reply, encodeOtlpResponse(partial, 'json') as string);
      return reply.type('application/x-protobuf').send(Buffer.from(encodeOtlpResponse(partial, 'protobuf')));
    },
  });
}
