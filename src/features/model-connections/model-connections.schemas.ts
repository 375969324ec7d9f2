import { Type, type Static } from '@sinclair/typebox';
import { listQuery, nameContains, recordPage } from '../../lib/pagination.js';
import { IdParam, NamedRecord, recordTimes, TrimmedText } from '../../schemas/common.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { PUBLIC_HTTP_URL_PATTERN } from '../../lib/webhook-target.js';

/** At most this many extra headers per connection. */
export const MAX_HEADERS = 20;
/** The largest monthly budget (USD). */
export const MAX_BUDGET_USD = 1_000_000;

const Name = TrimmedText(100, 'Unique in the organization');
// Checked by webhookUrlFault (model-connections.repo.ts), with its own words: the format and pattern state what it takes.
const BaseUrl = enforcedElsewhere(
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'The base of an OpenAI-compatible API (`https://api.openai.com/v1`): calls go to `{baseUrl}/chat/completions`. http or https, without credentials; private and loopback addresses (and names such as `localhost`) are refused unless the instance allows them (`SIGHTLINE_MODEL_ALLOW_PRIVATE`), and then address literals are taken too.',
  }),
  { format: 'uri', pattern: PUBLIC_HTTP_URL_PATTERN },
);
const Model = TrimmedText(200, 'The model called unless the prompt’s config names one');
/** Printable ASCII: what an HTTP header value may carry as it is. */
const HEADER_VALUE = '^[ -~]*$';
const ApiKey = Type.String({
  minLength: 1,
  maxLength: 4096,
  pattern: HEADER_VALUE,
  description: 'Sent as `Authorization: Bearer <apiKey>`. Write-only: stored sealed, never shown again (answers show `apiKeyHint`).',
});
const Headers = Type.Record(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$" }), Type.String({ maxLength: 4096, pattern: HEADER_VALUE }), {
  additionalProperties: false,
  maxProperties: MAX_HEADERS,
  description:
    'Extra request headers (`OpenAI-Organization`, a gateway’s `api-key`, …). Write-only: stored sealed like the key, answers show their names only. `Authorization` (give `apiKey`) and the headers that frame the request (`Host`, `Content-Type`, `Content-Length`, `Transfer-Encoding`, `Connection`, …) are refused.',
});
const Budget = Type.Number({ minimum: 0, maximum: MAX_BUDGET_USD, description: 'USD per calendar month (UTC); calls stop once the month’s spend reaches it' });
const Price = Type.Number({ minimum: 0, maximum: 100_000 });
export const PricingSchema = Type.Object(
  { inputPerMillion: Price, outputPerMillion: Price },
  {
    additionalProperties: false,
    description: 'USD per million input and output tokens; else the model price table’s (the organization’s prices, then the built-in table)',
  },
);
const Nullable = <T extends ReturnType<typeof Type.String> | typeof PricingSchema | typeof Headers>(schema: T) => Type.Union([schema, Type.Null()]);

export const ModelConnectionSchema = NamedRecord('ModelConnection', {
  id: Type.String(),
  name: Type.String(),
  baseUrl: Type.String(),
  model: Type.String(),
  apiKeyHint: Type.Union([Type.String(), Type.Null()], {
    description: 'The key’s last 4 characters after `…` (only `…` for a key under 12 characters), or null when none is set',
  }),
  headerNames: Type.Array(Type.String(), { description: 'The names of the extra headers (their values are never shown)' }),
  monthlyBudgetUsd: Type.Number(),
  spentThisMonthUsd: Type.Number({ description: 'What this calendar month’s (UTC) calls cost, judge and test calls alike' }),
  pricing: Type.Union([PricingSchema, Type.Null()]),
  ...recordTimes,
});
export type ModelConnection = Static<typeof ModelConnectionSchema>;
export const ModelConnectionPage = recordPage('ModelConnection');

export const CreateModelConnectionBody = Type.Object(
  {
    name: Name,
    baseUrl: BaseUrl,
    model: Model,
    apiKey: Type.Optional(ApiKey),
    headers: Type.Optional(Headers),
    monthlyBudgetUsd: Budget,
    pricing: Type.Optional(Nullable(PricingSchema)),
  },
  { title: 'ModelConnectionCreate', additionalProperties: false },
);
export type CreateModelConnection = Static<typeof CreateModelConnectionBody>;

export const UpdateModelConnectionBody = Type.Object(
  {
    name: Type.Optional(Name),
    baseUrl: Type.Optional(BaseUrl),
    model: Type.Optional(Model),
    apiKey: Type.Optional(Nullable(ApiKey)),
    headers: Type.Optional(Nullable(Headers)),
    monthlyBudgetUsd: Type.Optional(Budget),
    pricing: Type.Optional(Nullable(PricingSchema)),
  },
  {
    title: 'ModelConnectionUpdate',
    additionalProperties: false,
    minProperties: 1,
    description: 'The fields to change; `apiKey`, `headers` or `pricing` null removes them',
  },
);
export type UpdateModelConnection = Static<typeof UpdateModelConnectionBody>;

export const ListModelConnectionsQuery = listQuery({ name: nameContains(100) });
export const ModelConnectionParams = Type.Object({ connection_id: IdParam('mcn', 'Model connection id') }, { additionalProperties: false });

export const ConnectionTestSchema = Type.Object(
  {
    ok: Type.Boolean({ description: 'The endpoint answered a chat completion with JSON content' }),
    model: Type.String({ description: 'The model asked' }),
    status: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status of the answer, or null when none came' }),
    latencyMs: Type.Integer(),
    costUsd: Type.Number({ description: 'What the call cost (added to the month’s spend)' }),
    problem: Type.Union([Type.String(), Type.Null()], { description: 'What went wrong, or null' }),
    retryable: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether an evaluator would try again after this problem, or null when ok' }),
  },
  { title: 'ModelConnectionTest', additionalProperties: false },
);
export type ConnectionTest = Static<typeof ConnectionTestSchema>;
