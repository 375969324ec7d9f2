import { Type, type TProperties } from '@sinclair/typebox';
import { StringEnum, Timestamp } from '../../schemas/common.js';
import { MAX_BUCKETS } from './metrics.rules.js';
import { metadataFilters, runFilterProperties } from './filters.schemas.js';

export const BUCKETS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 } as const;
export type Bucket = keyof typeof BUCKETS;
export const GROUP_BY = ['status', 'kind', 'model', 'name'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** The window of a metrics query (`from`, `to`, `bucket`), shared by the runs and the scores metrics. */
export const metricsWindowProperties = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive start, before `to`; default `to` minus 24 hours' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive end; default now' })),
  bucket: Type.Optional(StringEnum(['1m', '5m', '1h', '1d'] as const, { description: `UTC-aligned buckets; [from, to) may span ${MAX_BUCKETS} at most` })),
};

export const RunMetricsQuery = Type.Object(
  {
    ...runFilterProperties,
    ...metricsWindowProperties,
    groupBy: Type.Optional(StringEnum(GROUP_BY)),
  },
  { additionalProperties: false, patternProperties: metadataFilters },
);

const MetricValues = {
  count: Type.Integer(),
  errorCount: Type.Integer(),
  latencyP50: Type.Union([Type.Integer(), Type.Null()]),
  latencyP95: Type.Union([Type.Integer(), Type.Null()]),
  totalTokens: Type.Integer({ description: 'The runs’ tokens, estimated ones included (a run says whether its own are: `usage.estimated`)' }),
  cost: Type.Number(),
};
/** A metrics answer (runs, scores): the window, and the values per group and bucket and in total. */
export function metricsSchema<V extends TProperties>(values: V, title: string) {
  return Type.Object(
    {
      from: Timestamp,
      to: Timestamp,
      bucket: Type.Union([Type.String(), Type.Null()]),
      groupBy: Type.Union([Type.String(), Type.Null()]),
      groups: Type.Array(
        Type.Object(
          {
            key: Type.Union([Type.String(), Type.Null()]),
            series: Type.Array(Type.Object({ start: Timestamp, ...values }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
      ),
      total: Type.Object(values, { additionalProperties: false }),
    },
    { title, additionalProperties: false },
  );
}
export const RunMetricsSchema = metricsSchema(MetricValues, 'RunMetrics');
