import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { recordPage } from '../../lib/pagination.js';
import { acrossFields, IdParam, NamedRecord, recordTimes, StringEnum, TrimmedText } from '../../schemas/common.js';
import { QueueFilterSchema } from '../annotations/annotations.schemas.js';
import { MAX_CONTAINS, MAX_PATTERN } from './evaluators.builtins.js';

const Name = TrimmedText(200, 'Unique in the project; no leading or trailing space');
const ScoreName = TrimmedText(100, 'The name of the scores the rule gives (a score config of that name validates them, as any score)');
const SampleRate = Type.Number({
  minimum: 0,
  maximum: 1,
  description: 'The share of new matching runs evaluated, chosen by a hash of (rule id, run id): the same runs each time',
});
const CaseSensitive = Type.Boolean({ description: 'Compare letters case-sensitively (default true)' });
const Expected = {
  expected: Type.Optional(Type.String({ maxLength: 10_000, description: 'The expected output, the same for every run' })),
  expectedKey: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      maxLength: 64,
      description: 'The top-level metadata key of the run that holds its expected output (default `expected`; not with `expected`)',
    }),
  ),
  caseSensitive: Type.Optional(CaseSensitive),
};

// builtinFaults' rule (evaluators.builtins.ts): the expected output is a literal or a metadata key, not both.
const NOT_BOTH_EXPECTED = { not: { required: ['expected', 'expectedKey'] } };

const variant = <K extends string, T extends TProperties>(type: K, properties: T, description: string) =>
  Type.Object({ type: Type.Literal(type), ...properties }, { additionalProperties: false, title: `Evaluator_${type}`, description });

/** What a rule does with a run: one of the built-ins (no model) or an LLM judge. */
export const EvaluatorSchema = Type.Union(
  [
    variant('json_valid', {}, 'Boolean: the output is JSON.'),
    variant(
      'json_schema',
      { schema: Type.Object({}, { additionalProperties: true, description: 'A JSON schema (draft 2020-12 or 07); its patterns are checked as a regex’s' }) },
      'Boolean: the output is JSON that the schema accepts.',
    ),
    variant(
      'regex',
      {
        pattern: Type.String({
          minLength: 1,
          maxLength: MAX_PATTERN,
          description: 'A JavaScript regular expression without back-references or nested repetition',
        }),
        flags: Type.Optional(Type.String({ pattern: '^[ims]{0,3}$', maxLength: 3, description: 'Any of `i`, `m`, `s`, each at most once' })),
        mode: Type.Optional(StringEnum(['match', 'no_match'] as const, { description: '`match` (default): true when found; `no_match`: true when not' })),
      },
      'Boolean: the pattern is found in the output (its first 10,000 characters).',
    ),
    variant(
      'contains',
      {
        values: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: MAX_CONTAINS }),
        mode: Type.Optional(
          StringEnum(['any', 'all', 'none'] as const, { description: 'True when any (default), all or none of the values is in the output' }),
        ),
        caseSensitive: Type.Optional(CaseSensitive),
      },
      'Boolean: the output contains the values (any, all or none).',
    ),
    acrossFields(variant('exact_match', Expected, 'Boolean: the output equals the expected output (both trimmed).'), NOT_BOTH_EXPECTED),
    acrossFields(
      variant(
        'fuzzy_match',
        {
          ...Expected,
          threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'With it the score is a boolean: similarity ≥ threshold' })),
        },
        'Numeric 0..1: normalized Levenshtein similarity to the expected output (first 2,000 characters of each); boolean with `threshold`.',
      ),
      NOT_BOTH_EXPECTED,
    ),
    acrossFields(
      variant(
        'length',
        {
          min: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, format: 'int32' })),
          max: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, format: 'int32' })),
        },
        'Boolean: the output has min..max characters (at least one bound; max at least min).',
      ),
      { anyOf: [{ required: ['min'] }, { required: ['max'] }] },
    ),
    variant('latency', { maxMs: Type.Integer({ minimum: 0, maximum: 86_400_000, format: 'int32' }) }, 'Boolean: the run took at most maxMs.'),
    variant(
      'llm_judge',
      {
        connectionId: IdParam('mcn', 'A model connection of the organization (GET /v1/model-connections)'),
        promptName: Type.String({ minLength: 1, maxLength: 200, description: 'A prompt of the prompt store with {{input}}, {{output}}, {{expected}}' }),
        promptVersion: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 2_147_483_647, format: 'int32', description: 'That version (default: the label, else the latest)' }),
        ),
        promptLabel: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The version the label points at when the job runs' })),
        expectedKey: Expected.expectedKey,
      },
      'The model’s score (number, boolean or category) and reason, from its JSON answer `{ score, reason }`.',
    ),
  ],
  { description: 'How a sampled run is judged; `type` says which evaluator' },
);
export type Evaluator = Static<typeof EvaluatorSchema>;

export const EvaluatorFilterSchema = {
  ...QueueFilterSchema,
  title: 'EvaluatorFilter',
  description:
    'The runs list’s filters with the same names and values (`status`, `kind`, `name`, `tag` (array), `model`, `traceId`, `sessionId`, `userId`, `parentRunId`, `startedAfter`, `startedBefore`, `hasMetadata` (array), `hasScore` (array), `experiment`, `q`, `metadata.<key>`, `metadata.<key>!`), read by the runs list’s own code against each sampled run when it is evaluated (`experiment`: as its trace is marked then).',
} as typeof QueueFilterSchema;
export type EvaluatorFilter = Static<typeof EvaluatorFilterSchema>;

export const JobCountsSchema = Type.Object(
  {
    pending: Type.Integer({ description: 'Sampled runs waiting to be evaluated (or to finish)' }),
    done: Type.Integer({ description: 'Runs scored' }),
    failed: Type.Integer({ description: 'Runs given up on after the retries (see lastError)' }),
    skipped: Type.Integer({ description: 'Runs not evaluated: the filter does not match, nothing to compare with, or the run never finished' }),
  },
  { additionalProperties: false },
);
export type JobCounts = Static<typeof JobCountsSchema>;

export const EvaluatorRuleSchema = NamedRecord('EvaluatorRule', {
  id: Type.String(),
  projectId: Type.String(),
  name: Type.String(),
  filter: Type.Object({}, { additionalProperties: true, description: 'The runs list’s filters, as given' }),
  sampleRate: Type.Number(),
  evaluator: Type.Object(
    { type: StringEnum(['json_valid', 'json_schema', 'regex', 'contains', 'exact_match', 'fuzzy_match', 'length', 'latency', 'llm_judge'] as const) },
    {
      additionalProperties: true,
      description: 'As given at creation or the last update',
    },
  ),
  scoreName: Type.String(),
  enabled: Type.Boolean(),
  counts: JobCountsSchema,
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'The error of the rule’s latest failed job' }),
  ...recordTimes,
});
export type EvaluatorRule = Static<typeof EvaluatorRuleSchema>;
export const EvaluatorRulePage = recordPage('EvaluatorRule');

export const CreateRuleBody = Type.Object(
  {
    name: Name,
    filter: Type.Optional(EvaluatorFilterSchema),
    sampleRate: Type.Optional(SampleRate),
    evaluator: EvaluatorSchema,
    scoreName: ScoreName,
    enabled: Type.Optional(Type.Boolean({ description: 'Default true; a disabled rule samples nothing and its pending jobs wait' })),
  },
  { title: 'EvaluatorRuleCreate', additionalProperties: false },
);
export type CreateRule = Static<typeof CreateRuleBody>;

export const UpdateRuleBody = Type.Object(
  {
    name: Type.Optional(Name),
    filter: Type.Optional(EvaluatorFilterSchema),
    sampleRate: Type.Optional(SampleRate),
    evaluator: Type.Optional(EvaluatorSchema),
    scoreName: Type.Optional(ScoreName),
    enabled: Type.Optional(Type.Boolean()),
  },
  { title: 'EvaluatorRuleUpdate', additionalProperties: false, minProperties: 1 },
);
export type UpdateRule = Static<typeof UpdateRuleBody>;

export const RuleParams = Type.Object(
  { project_id: IdParam('prj', 'Project id'), rule_id: IdParam('evr', 'Evaluator rule id') },
  { additionalProperties: false },
);
