import { Type } from '@sinclair/typebox';
import { BODY_LIMIT } from '../../lib/body.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { MAX_OTLP_MESSAGES } from './otlp.bounds.js';

const OTLP_SPEC = 'https://opentelemetry.io/docs/specs/otlp/';

/** Any OTLP/HTTP request body: the route decodes it itself (bytes in, exact 64-bit integers). */
const exportRequest = (description: string, shape: Record<string, unknown>) => enforcedElsewhere(Type.Unknown({ description }), shape);

export const ExportTraceServiceRequestBody = {
  content: {
    'application/x-protobuf': {
      schema: exportRequest('An `ExportTraceServiceRequest` protobuf message (opentelemetry-proto, `collector/trace/v1`)', {
        type: 'string',
        format: 'binary',
        maxLength: BODY_LIMIT,
      }),
    },
    'application/json': {
      schema: exportRequest(
        `An \`ExportTraceServiceRequest\` in OTLP JSON (${OTLP_SPEC}#json-protobuf-encoding): hex trace and span ids, 64-bit integers as strings or numbers`,
        {
          type: 'object',
          properties: { resourceSpans: { type: 'array', maxItems: MAX_OTLP_MESSAGES, items: { type: 'object' } } },
        },
      ),
    },
  },
};

export const ExportTraceServiceResponseSchema = Type.Object(
  {
    partialSuccess: Type.Optional(
      Type.Object(
        {
          rejectedSpans: Type.String({ pattern: '^[0-9]{1,19}$', description: 'Spans not stored (an int64, as OTLP JSON writes it)' }),
          errorMessage: Type.String({ description: 'Why the first of them was not stored' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    title: 'ExportTraceServiceResponse',
    additionalProperties: false,
    description:
      'OTLP JSON; with `Content-Type: application/x-protobuf` the same message as protobuf. No `partialSuccess`: every span was stored (or already was).',
  },
);

export const ExportTracesHeaders = Type.Object({
  'sightline-project': Type.Optional(
    Type.String({ maxLength: 1000, description: 'The project (id or name) every span of the request goes to; created by name if missing (member and up)' }),
  ),
});
