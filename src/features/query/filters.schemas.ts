import { enforcedElsewhere, VALUE_PATTERN_BY_NAME } from '../../lib/enforced-elsewhere.js';
import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp } from '../../schemas/common.js';
import { RunKind, RunStatusSchema } from '../../schemas/records.js';

/** A metadata key as the `metadata.<key>` and `hasMetadata` filters name it. */
export const METADATA_KEY_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** What the `experiment` filter keeps of experiment traffic: `include` (the default), `exclude`, `only`. */
export const EXPERIMENT_TRAFFIC = ['include', 'exclude', 'only'] as const;

/** The filter grammar shared by the runs list, the runs metrics and (later) monitors. */
export const runFilterProperties = {
  status: Type.Optional(RunStatusSchema),
  kind: Type.Optional(RunKind),
  name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: 'The run name, exactly; ending in `*`, the names that start with the rest (`Chat*`)' }),
  ),
  tag: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 10, description: 'Repeatable; every tag must be present' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  traceId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  userId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  parentRunId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: '`null` lists root runs only' })),
  startedAfter: Type.Optional(Timestamp),
  startedBefore: Type.Optional(Timestamp),
  hasMetadata: Type.Optional(
    Type.Array(Type.String({ pattern: METADATA_KEY_PATTERN, maxLength: 64 }), {
      maxItems: 10,
      description: 'Repeatable; runs whose metadata has this top-level key (any value, null included)',
    }),
  ),
  hasScore: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 10,
      description: 'Repeatable; runs that have, or whose trace or session has, a score of this name',
    }),
  ),
  experiment: Type.Optional(
    StringEnum(EXPERIMENT_TRAFFIC, {
      description:
        'Experiment traffic: the traces an experiment recorded a result for (its run’s trace, or the trace the result names), and every run of them. `include` (the default) lists it with the rest, `exclude` leaves it out, `only` lists nothing else',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Full-text search: every word (whole words, case-insensitive) must appear in the run’s name, inputs, outputs or error',
    }),
  ),
};
/** `metadata.<key>=<value>`, and `metadata.<key>!=<value>` (the parameter's name then ends in `!`). */
export const METADATA_FILTER_PATTERN = '^metadata\\.[A-Za-z0-9_-]{1,64}!?$';
/** `score.<name>` (`=`), `score.<name>>` (from `score.<name>>=v`) and `score.<name><` (from `score.<name><=v`). */
export const SCORE_FILTER_PATTERN = '^score\\.[^<>]{1,100}[<>]?$';
/** A score bound's value (`score.<name>>=` and `<=`), as `scoreFiltersOf` reads it. */
export const SCORE_BOUND_PATTERN = '^[-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?$';
// The bounds' values are numbers (`score.<name><` and `>`): stated in the document, checked by scoreFiltersOf in its words.
export const scoreFilter = enforcedElsewhere(
  Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      '`score.<name>=<value>`, `score.<name>>=<number>`, `score.<name><=<number>`: runs that have, or whose trace or session has, a score of that name with that value (a boolean’s `true`/`false`, a category, a number) or within that bound; at most 10 score filters in a request, these and `hasScore` together',
  }),
  { [VALUE_PATTERN_BY_NAME]: { '[<>]$': SCORE_BOUND_PATTERN } },
);
export const metadataFilters = {
  [METADATA_FILTER_PATTERN]: Type.String({
    maxLength: 1000,
    description:
      '`metadata.<key>=<value>`: exact match on a top-level metadata value (a number, boolean or null matches its JSON text too); `metadata.<key>!=<value>`: runs without that value (the key absent included)',
  }),
  [SCORE_FILTER_PATTERN]: scoreFilter,
};
