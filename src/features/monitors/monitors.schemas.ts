import { Type, type Static } from '@sinclair/typebox';
import { listQuery, pageSchema, recordPage } from '../../lib/pagination.js';
import { acrossFields, IdParam, NamedRecord, recordTimes, StringEnum, Timestamp, TrimmedText } from '../../schemas/common.js';
import { MAX_BUCKETS } from '../query/metrics.rules.js';
import { METADATA_FILTER_PATTERN, runFilterProperties } from '../query/filters.schemas.js';
import {
  METRICS,
  MONITOR_STATES,
  OPERATORS,
  SCORE_FILTER_KEYS,
  SCORE_METRICS,
  WINDOW_MS,
  type Metric,
  type MonitorState,
  type Operator,
  type Window,
} from './monitors.rules.js';
import { SCORE_SOURCES, SCORE_TARGETS } from '../../schemas/records.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { PUBLIC_HTTP_URL_PATTERN } from '../../lib/webhook-target.js';

export { METRICS, MONITOR_STATES, OPERATORS, type Metric, type MonitorState, type Operator, type Window };
export const WINDOWS = WINDOW_MS;
export const MONITOR_BUCKETS = { '1m': 60_000, ...WINDOWS } as const;
export type MonitorBucket = keyof typeof MONITOR_BUCKETS;
export const MAX_WEBHOOKS = 5;

/**
 * A monitor's filter: the runs list's filter names and values (its time range is the monitor's window,
 * so `startedAfter`/`startedBefore` are not part of it). `parentRunId: null` (or "null") selects roots.
 * Score metrics take the scores list's `source` and `target` instead (and only those).
 */
const { startedAfter: _a, startedBefore: _b, parentRunId: _p, ...filterProperties } = runFilterProperties;
export const MonitorFilterSchema = Type.Object(
  {
    ...filterProperties,
    parentRunId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], { description: '`null` selects root runs only' })),
    source: Type.Optional(StringEnum(SCORE_SOURCES, { description: 'Score metrics only: scores of this source (`api`, `annotation`, `evaluator`)' })),
    target: Type.Optional(StringEnum(SCORE_TARGETS, { description: 'Score metrics only: scores of runs, traces or sessions' })),
  },
  {
    title: 'MonitorFilter',
    additionalProperties: false,
    patternProperties: {
      [METADATA_FILTER_PATTERN]: Type.String({
        maxLength: 1000,
        description: 'A top-level metadata value: `metadata.<key>` equal to it, `metadata.<key>!` not',
      }),
    },
    description:
      'Run metrics: the runs list filter names (`status`, `kind`, `name`, `tag` (array, all must match), `model`, `traceId`, `sessionId`, `userId`, `hasMetadata` (array), `experiment`, `q`, `parentRunId`, `metadata.<key>`, `metadata.<key>!`). ' +
      'Score metrics (`score_mean`, `score_share`): the scores list’s `source` and `target` only.',
  },
);
export type MonitorFilter = Static<typeof MonitorFilterSchema>;

export const ThresholdSchema = Type.Object(
  { op: StringEnum(OPERATORS), value: Type.Number({ minimum: -1e15, maximum: 1e15 }) },
  { additionalProperties: false, description: 'The monitor alerts while `metric op value` holds (`<` works on a silent project: its count is 0).' },
);

export const MonitorScoreSchema = Type.Object(
  {
    name: TrimmedText(100, 'The scores’ name'),
    label: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: '`score_share` only (and required there): the label counted (`true`/`false` for boolean scores, or a category)',
      }),
    ),
  },
  {
    title: 'MonitorScore',
    additionalProperties: false,
    description:
      'The scores a score metric watches (required for `score_mean` and `score_share`, refused for the others): `score_mean` is their mean (true as 1), `score_share` the share of the boolean and categorical ones whose label is `label`; read from the same aggregate as GET …/scores/metrics over the window',
  },
);
export type MonitorScore = Static<typeof MonitorScoreSchema>;
const NullableScore = Type.Union([MonitorScoreSchema, Type.Null()]);

// Checked by webhookUrlFault (monitors.service.ts), with its own words: the format and pattern state what it takes.
const WebhookUrls = Type.Array(enforcedElsewhere(Type.String({ minLength: 1, maxLength: 2048 }), { format: 'uri', pattern: PUBLIC_HTTP_URL_PATTERN }), {
  maxItems: MAX_WEBHOOKS,
  uniqueItems: true,
  description:
    'http(s) URLs POSTed a signed JSON event on every state change, without credentials; private and loopback addresses (and names such as `localhost`) are refused unless the instance allows them, and then address literals are taken too.',
});

export const MonitorSchema = NamedRecord('Monitor', {
  id: Type.String(),
  projectId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  filter: MonitorFilterSchema,
  metric: StringEnum(METRICS),
  score: NullableScore,
  window: StringEnum(Object.keys(WINDOWS) as Window[]),
  threshold: Type.Union([ThresholdSchema, Type.Null()]),
  enabled: Type.Boolean(),
  state: StringEnum(MONITOR_STATES),
  lastEvaluatedAt: Type.Union([Timestamp, Type.Null()]),
  webhookUrls: Type.Array(Type.String()),
  ...recordTimes,
});
export type Monitor = Static<typeof MonitorSchema>;

export const MonitorWithSecretSchema = Type.Object(
  {
    ...MonitorSchema.properties,
    webhookSecret: Type.String({ description: 'The HMAC-SHA256 signing secret of this monitor’s webhooks. Shown only here: store it now.' }),
  },
  { title: 'MonitorWithSecret', additionalProperties: false },
);

// scoreDefinitionFaults' rules (monitors.rules.ts): the score metrics watch the scores of one name (`score_share`
// one label of them) and filter them by `source` and `target` only; the run metrics take neither.
export const CreateMonitorBody = acrossFields(
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200 }),
      description: Type.Optional(Type.String({ maxLength: 2000 })),
      filter: Type.Optional(MonitorFilterSchema),
      metric: StringEnum(METRICS),
      score: Type.Optional(NullableScore),
      window: StringEnum(Object.keys(WINDOWS) as Window[]),
      threshold: Type.Optional(Type.Union([ThresholdSchema, Type.Null()])),
      enabled: Type.Optional(Type.Boolean()),
      webhookUrls: Type.Optional(WebhookUrls),
    },
    { title: 'MonitorCreate', additionalProperties: false },
  ),
  {
    allOf: [
      {
        if: { properties: { metric: { enum: [...SCORE_METRICS] } } },
        then: { required: ['score'], properties: { score: { not: { type: 'null' } }, filter: { propertyNames: { enum: [...SCORE_FILTER_KEYS] } } } },
        else: { properties: { score: { type: 'null' }, filter: { not: { anyOf: SCORE_FILTER_KEYS.map((key) => ({ required: [key] })) } } } },
      },
      { if: { properties: { metric: { const: 'score_share' } } }, then: { properties: { score: { required: ['label'] } } } },
      { if: { properties: { metric: { const: 'score_mean' } } }, then: { properties: { score: { not: { required: ['label'] } } } } },
    ],
  },
);
export type CreateMonitorInput = Static<typeof CreateMonitorBody>;

export const UpdateMonitorBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    filter: Type.Optional(MonitorFilterSchema),
    metric: Type.Optional(StringEnum(METRICS)),
    score: Type.Optional(NullableScore),
    window: Type.Optional(StringEnum(Object.keys(WINDOWS) as Window[])),
    threshold: Type.Optional(Type.Union([ThresholdSchema, Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: 'false pauses the monitor (its state becomes no_data); true resumes it' })),
    webhookUrls: Type.Optional(WebhookUrls),
  },
  { title: 'MonitorUpdate', additionalProperties: false, minProperties: 1 },
);
export type UpdateMonitorInput = Static<typeof UpdateMonitorBody>;

export const ListMonitorsQuery = listQuery({
  state: Type.Optional(StringEnum(MONITOR_STATES)),
  enabled: Type.Optional(StringEnum(['true', 'false'] as const)),
});

export const MonitorParams = Type.Object(
  { project_id: IdParam('prj', 'Project id'), monitor_id: IdParam('mon', 'Monitor id') },
  { additionalProperties: false },
);

export const MonitorEventSchema = Type.Object(
  {
    id: Type.String(),
    monitorId: Type.String(),
    from: StringEnum(MONITOR_STATES),
    to: StringEnum(MONITOR_STATES),
    value: Type.Union([Type.Number(), Type.Null()]),
    count: Type.Integer(),
    threshold: Type.Union([ThresholdSchema, Type.Null()]),
    windowStart: Timestamp,
    windowEnd: Timestamp,
    reason: StringEnum(['evaluated', 'paused', 'resumed', 'changed'] as const, {
      description: 'What caused the change: an evaluation, a pause, a resume, or an edit of the monitor',
    }),
    createdAt: Timestamp,
  },
  { title: 'MonitorEvent', additionalProperties: false },
);
export type MonitorEvent = Static<typeof MonitorEventSchema>;

export const WebhookAttemptSchema = Type.Object(
  {
    id: Type.String(),
    deliveryId: Type.String({ description: 'One delivery per event and URL; its attempts share it' }),
    eventId: Type.String(),
    url: Type.String(),
    attempt: Type.Integer({ description: '1 for the first try' }),
    outcome: StringEnum(['succeeded', 'retrying', 'failed'] as const, {
      description: '`retrying`: another attempt is scheduled at `nextAttemptAt`; `failed`: given up',
    }),
    responseStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'The receiver’s HTTP status, or null when no response came' }),
    latencyMs: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()]),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
  },
  { title: 'WebhookAttempt', additionalProperties: false },
);
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

export const MonitorMetricsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive start, before `to`; default: 24 buckets before `to`' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive end; default now' })),
    bucket: Type.Optional(
      StringEnum(Object.keys(MONITOR_BUCKETS) as MonitorBucket[], {
        description: `Default: the monitor's window; [from, to) may span ${MAX_BUCKETS} buckets at most`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const MonitorMetricsSchema = Type.Object(
  {
    monitorId: Type.String(),
    metric: StringEnum(METRICS),
    from: Timestamp,
    to: Timestamp,
    bucket: Type.String(),
    series: Type.Array(
      Type.Object({ start: Timestamp, value: Type.Union([Type.Number(), Type.Null()]), count: Type.Integer() }, { additionalProperties: false }),
    ),
    current: Type.Object(
      {
        value: Type.Union([Type.Number(), Type.Null()]),
        count: Type.Integer(),
        state: StringEnum(MONITOR_STATES),
        windowStart: Timestamp,
        windowEnd: Timestamp,
      },
      { additionalProperties: false, description: 'The metric over the latest window (ending now) and the state it gives' },
    ),
  },
  { title: 'MonitorMetrics', additionalProperties: false },
);

export const MonitorPage = recordPage('Monitor');
export const MonitorEventPage = pageSchema(MonitorEventSchema, 'MonitorEventPage');
export const WebhookAttemptPage = pageSchema(WebhookAttemptSchema, 'WebhookAttemptPage');
