import { Type, type Static } from '@sinclair/typebox';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { listQuery, recordPage } from '../../lib/pagination.js';
import { IdParam, NamedRecord, recordTimes, StringEnum, Timestamp, TrimmedText } from '../../schemas/common.js';
import { MAX_COMMENT } from '../scores/scores.rules.js';
import { ScoreValue } from '../scores/scores.schemas.js';
import { ITEM_STATUSES, MAX_ADD, MAX_QUEUE_CONFIGS, MAX_SAMPLED_SCAN, MAX_SCORES_PER_ITEM, QUEUE_TARGETS } from './annotations.rules.js';
import { JsonObject } from '../../schemas/records.js';
import { METADATA_FILTER_PATTERN, runFilterProperties } from '../query/filters.schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const Name = TrimmedText(200, 'Unique in the project; no leading or trailing space');
const Description = Type.String({ maxLength: 10_000 });
const ScoreConfigIds = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: MAX_QUEUE_CONFIGS,
  uniqueItems: true,
  description: 'Score configs of the organization that reviewers are asked for (a 400 names any that is not one)',
});

export const QueueCountsSchema = Type.Object(
  {
    pending: Type.Integer({ description: 'Pending items nobody holds: what a claim can give' }),
    inProgress: Type.Integer({ description: 'Pending items under an unexpired lease' }),
    completed: Type.Integer(),
    skipped: Type.Integer(),
  },
  { additionalProperties: false, description: 'Every item of the queue, exactly once, as of the request' },
);
export type QueueCounts = Static<typeof QueueCountsSchema>;

export const AnnotationQueueSchema = NamedRecord('AnnotationQueue', {
  id: Type.String(),
  projectId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  target: StringEnum(QUEUE_TARGETS, { description: 'What its items are: runs or traces of the project' }),
  scoreConfigIds: Type.Array(Type.String()),
  counts: QueueCountsSchema,
  ...recordTimes,
});
export type AnnotationQueue = Static<typeof AnnotationQueueSchema>;
export const AnnotationQueuePage = recordPage('AnnotationQueue');

export const AnnotationItemSchema = NamedRecord('AnnotationItem', {
  id: Type.String(),
  queueId: Type.String(),
  projectId: Type.String(),
  target: StringEnum(QUEUE_TARGETS),
  targetId: Type.String({ description: 'The run or trace to review' }),
  status: StringEnum(ITEM_STATUSES),
  reviewerId: Type.Union([Type.String(), Type.Null()], { description: 'The user who claimed it last' }),
  leaseUntil: Type.Union([Timestamp, Type.Null()], { description: 'Until when the reviewer holds it (a claim renews it); past: anyone may claim it' }),
  completedBy: Type.Union([Type.String(), Type.Null()], { description: 'Who completed or skipped it' }),
  completedAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
});
export type AnnotationItem = Static<typeof AnnotationItemSchema>;
export const AnnotationItemPage = recordPage('AnnotationItem');

export const CreateQueueBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    target: Type.Optional(StringEnum(QUEUE_TARGETS, { description: 'What its items are (default `run`); never changes' })),
    scoreConfigIds: Type.Optional(ScoreConfigIds),
  },
  { title: 'AnnotationQueueCreate', additionalProperties: false },
);
export type CreateQueue = Static<typeof CreateQueueBody>;

export const UpdateQueueBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), scoreConfigIds: Type.Optional(ScoreConfigIds) },
  { title: 'AnnotationQueueUpdate', additionalProperties: false, minProperties: 1 },
);
export type UpdateQueue = Static<typeof UpdateQueueBody>;

export const ListItemsQuery = listQuery({ status: Type.Optional(StringEnum(ITEM_STATUSES, { description: 'Only items with this status' })) });

/** The runs list's filters (the traces list's for a trace queue: no `parentRunId`, no `traceId`), as an object. */
export const QueueFilterSchema = Type.Object(
  { ...runFilterProperties },
  {
    title: 'AnnotationFilter',
    additionalProperties: false,
    patternProperties: {
      [METADATA_FILTER_PATTERN]: Type.String({ maxLength: 1000, description: '`metadata.<key>`: equal to it; `metadata.<key>!`: not' }),
    },
    description:
      'The runs list’s filters with the same names and values (`status`, `kind`, `name`, `tag` (array), `model`, `traceId`, `sessionId`, `userId`, `parentRunId`, `startedAfter`, `startedBefore`, `hasMetadata` (array), `experiment`, `q`, `metadata.<key>`, `metadata.<key>!`); a trace queue takes the traces list’s (not `parentRunId` nor `traceId`).',
  },
);
export type QueueFilter = Static<typeof QueueFilterSchema>;

// Exactly one of `ids` and `filter`, and `rate` and `limit` only with `filter`: the route says which is missing or extra.
export const AddItemsBody = enforcedElsewhere(
  Type.Object(
    {
      ids: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
          minItems: 1,
          maxItems: MAX_ADD,
          description: 'Runs or traces (as the queue’s target) of the project; all must exist, else a 400 lists those that do not and nothing is added',
        }),
      ),
      filter: Type.Optional(QueueFilterSchema),
      rate: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 1,
          description: `With \`filter\`: a sample of the matching targets at this rate (by a hash of the queue and target ids, so the same each time), among the newest ${MAX_SAMPLED_SCAN.toLocaleString('en-US')}`,
        }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_ADD,
          format: 'int32',
          description: `With \`filter\`: the most targets taken, newest first (default ${MAX_ADD})`,
        }),
      ),
    },
    { title: 'AnnotationItemsAdd', additionalProperties: false },
  ),
  { oneOf: [{ required: ['ids'] }, { required: ['filter'] }], dependentRequired: { rate: ['filter'], limit: ['filter'] } },
);
export type AddItems = Static<typeof AddItemsBody>;

export const ItemsAddedSchema = Type.Object(
  {
    added: Type.Integer({ description: 'Targets put in the queue by this request' }),
    existing: Type.Integer({ description: 'Targets that were in the queue already (not an error)' }),
    examined: Type.Integer({ description: 'The distinct ids given, or the matching runs or traces looked at' }),
  },
  { title: 'AnnotationItemsAdded', additionalProperties: false },
);
export type ItemsAdded = Static<typeof ItemsAddedSchema>;

export const AnnotationScoreSchema = Type.Object(
  {
    name: Type.Optional(TrimmedText(100, 'The score’s name (default: its config’s)')),
    configId: Type.Optional(IdParam('scc', 'A score config to validate the value against')),
    value: ScoreValue,
    comment: Type.Optional(Nullable(Type.String({ maxLength: MAX_COMMENT }))),
    metadata: Type.Optional(JsonObject),
  },
  { title: 'AnnotationScore', additionalProperties: false },
);

export const CompleteItemBody = Type.Object(
  {
    scores: Type.Array(AnnotationScoreSchema, {
      minItems: 1,
      maxItems: MAX_SCORES_PER_ITEM,
      description: 'Scores of the item’s target, each validated as any score (by its config); all are stored or, when one is refused, none',
    }),
  },
  { title: 'AnnotationItemComplete', additionalProperties: false },
);
export type CompleteItem = Static<typeof CompleteItemBody>;

export const CompletedSchema = Type.Object(
  { item: Type.Ref('AnnotationItem'), scores: Type.Array(Type.Ref('Score')) },
  { title: 'AnnotationItemCompleted', additionalProperties: false },
);

export const QueueParams = Type.Object(
  { project_id: IdParam('prj', 'Project id'), queue_id: IdParam('aq', 'Annotation queue id') },
  { additionalProperties: false },
);
export const ItemParams = Type.Object(
  { project_id: IdParam('prj', 'Project id'), queue_id: IdParam('aq', 'Annotation queue id'), item_id: IdParam('aqi', 'Annotation item id') },
  { additionalProperties: false },
);
