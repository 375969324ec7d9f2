import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from './config.js';
import type { App } from './deps.js';
import { Operations, type ApiTag } from './lib/operations.js';

export const API_VERSION = '1.0.0';

/** The operation groups of the API document, in the order the reference page shows them. */
export const API_TAGS: readonly ApiTag[] = [
  { name: 'Identity', description: 'Who the credential belongs to: the user, their organization and role, and the credential itself.' },
  { name: 'Tokens', description: 'Personal access tokens of the caller: mint, list, rotate and revoke. A token string is shown once.' },
  {
    name: 'Organization',
    description: 'The caller’s organization: its name and allowed CORS origins, members and their roles, invitations, and every member’s tokens.',
  },
  { name: 'Projects', description: 'Projects hold runs and monitors; names are unique per organization.' },
  {
    name: 'Runs',
    description: 'Traced steps of LLM applications: ingest (one, a batch of up to 1,000, idempotent with client ids), list with filters, end, and aggregate.',
  },
  {
    name: 'Traces',
    description: 'Runs grouped by trace: totals (runs, errors, tokens by type, cost), the root run’s previews, and the run tree of one trace.',
  },
  { name: 'Sessions', description: 'Conversations (the runs’ `sessionId`): their totals, newest activity first, and each one’s traces in order.' },
  {
    name: 'Saved views',
    description: 'Your own named filter sets for a project’s lists (traces, runs, sessions, users), validated like the lists’ own filters.',
  },
  {
    name: 'Scores',
    description:
      'Judgments on runs, traces and sessions (numeric, boolean or categorical) from the API, reviewers and evaluators, and the organization’s score configs that validate them.',
  },
  {
    name: 'Annotation queues',
    description:
      'Runs or traces set aside for people to score: added by ids, by a runs filter or as a sample of one; each reviewer claims the next item (a lease no one else is given it under) and completes it with scores, or skips it.',
  },
  {
    name: 'Evaluators',
    description:
      'Rules that score a project’s new runs in the background: a runs filter, a sampling rate and an evaluator (JSON validity or schema, regex, contains, exact or fuzzy match, length, latency, or an LLM judge); the results are scores with source `evaluator`.',
  },
  { name: 'End users', description: 'The people an application serves (the runs’ `userId`): their totals and their traces.' },
  {
    name: 'OpenTelemetry',
    description: 'OTLP/HTTP trace ingestion (`POST /v1/traces`), for the OpenTelemetry SDKs, OpenInference, OpenLLMetry, the Vercel AI SDK and Collectors.',
  },
  { name: 'Prompts', description: 'Versioned prompt templates with movable labels, read with ETags and rendered with variables.' },
  { name: 'Monitors', description: 'A metric over a runs filter and a window, evaluated on a schedule, with a state, its history and signed webhooks.' },
  {
    name: 'Models',
    description:
      'What models cost: the built-in price table (dated, with its source) and the organization’s own prices, which add to and override it from a date on.',
  },
  {
    name: 'Datasets',
    description:
      'Named sets of examples (an input, an expected output) to test an application against: every change to the items is a new version of the dataset, and any version can be read back.',
  },
  {
    name: 'Model connections',
    description:
      'OpenAI-compatible chat endpoints of the organization that LLM-as-judge evaluators call: the base URL (through the SSRF guard), a key stored sealed, a monthly budget in USD and what this month has cost.',
  },
  {
    name: 'Experiments',
    description:
      'A task run over a version of a dataset: one result per item (its output, the run that made it, latency, usage, cost), the scores on those runs aggregated, and experiments compared item by item.',
  },
  {
    name: 'Langfuse',
    description:
      'Langfuse’s public ingestion paths, for its SDKs unchanged (`LANGFUSE_BASE_URL` set to this server, the public key a project, the secret key a token): the same pipelines as `/v1`.',
  },
  { name: 'Operations', description: 'Unauthenticated routes for load balancers and token verifiers: liveness, readiness and the JWT public keys.' },
];

const BEARER =
  'A JWT signed by this service: a personal access token (POST /v1/tokens) or the dashboard’s short-lived session token. ' +
  'Verified as RFC8725 (JSON Web Token Best Current Practices) asks: one signing algorithm allowed (never `none`), a `kid` of this service’s keys ' +
  '(published at /.well-known/jwks.json), an explicit `typ` per kind of token, and `iss`, `aud`, `exp` and `nbf` checked.';

const BASIC =
  'Langfuse’s keys, on the routes Langfuse’s SDKs call (`/api/public/…`): the user (Langfuse’s public key) is the project, by id or name; ' +
  'the password (the secret key) is a personal access token, verified as a bearer token is.';

/**
 * The OpenAPI 3.1 document (served at /openapi.json, shown at /docs), assembled from the route
 * declarations by @fastify/swagger. Registered before any route: from here on, a documented route
 * without an operationId or a declared tag does not register.
 */
export async function registerApiDocument(app: App, config: Config): Promise<void> {
  const operations = new Operations(API_TAGS);
  app.addHook('onRoute', operations.declare);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sightline API',
        version: API_VERSION,
        description:
          'Runs, prompts and monitors of LLM applications. Every error is an RFC 9457 problem document (`application/problem+json`). ' +
          'Every list is cursor-paginated: `limit` (1..100, default 25, clamped) and an opaque `cursor`; follow `nextCursor` until it is null. ' +
          'No text value may hold U+0000 or an unpaired surrogate. Keep tokens on servers: do not ship them to browsers.',
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      },
      servers: [{ url: config.publicUrl, 'x-internal': false } as { url: string }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: BEARER },
          basic: { type: 'http', scheme: 'basic', description: BASIC },
        },
      },
      security: [],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: operations.transform,
    transformObject: (document) => operations.complete('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
