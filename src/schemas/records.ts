import { Type } from '@sinclair/typebox';
import { enforcedElsewhere } from '../lib/enforced-elsewhere.js';
import { recordPage } from '../lib/pagination.js';
import { IdParam, NamedRecord, pathSegment, StringEnum } from './common.js';

/**
 * The vocabulary and references every feature shares about the recorded data: run kinds and statuses,
 * score data types, sources and targets, run ids, any JSON object, and the path parameters that name a
 * project, a run, a trace, a session and an end user. Kept below the features so that each reads them
 * without importing the feature that owns the table (ARCHITECTURE.md, Tiers).
 */
export const RUN_KINDS = ['llm', 'chain', 'tool', 'retriever', 'embedding', 'agent', 'custom'] as const;
export const RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const RunKind = StringEnum(RUN_KINDS);
export const RunStatusSchema = StringEnum(RUN_STATUSES);

export const SCORE_DATA_TYPES = ['numeric', 'boolean', 'categorical'] as const;
export const SCORE_SOURCES = ['api', 'annotation', 'evaluator'] as const;
export const SCORE_TARGETS = ['run', 'trace', 'session'] as const;
export type ScoreDataType = (typeof SCORE_DATA_TYPES)[number];
export type ScoreTarget = (typeof SCORE_TARGETS)[number];

/** Client-chosen ids: URL-safe, and never a word the API uses in the same path position. */
export const RUN_ID_PATTERN = '^(?!(null|metrics|batch|values)$)[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$';
// The pattern bounds the length too; `maxLength` says so to readers (and is not checked twice).
export const RunRef = (options: { description?: string } = {}) => enforcedElsewhere(Type.String({ pattern: RUN_ID_PATTERN, ...options }), { maxLength: 128 });

export const JsonObject = Type.Object({}, { additionalProperties: true, description: 'Any JSON object' });

/** Session and end-user ids are the client's: 1..256 characters, any but control characters. */
const ContextKey = (description: string) =>
  enforcedElsewhere(Type.String({ minLength: 1, pattern: '^[^\\u0000-\\u001f]{1,256}$', description }), { maxLength: 256 });

export const ProjectParams = Type.Object({ project_id: IdParam('prj', 'Project id') }, { additionalProperties: false });
export const ProjectRunParams = Type.Object({ project_id: IdParam('prj', 'Project id'), run_id: IdParam('run', 'Run id') }, { additionalProperties: false });
export const TraceParams = Type.Object(
  {
    project_id: IdParam('prj', 'Project id'),
    // The pattern bounds the length too; `maxLength` says so to readers (and is not checked twice).
    trace_id: enforcedElsewhere(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$', description: 'Trace id' }), { maxLength: 128 }),
  },
  { additionalProperties: false },
);
export const SessionParams = Type.Object(
  { project_id: IdParam('prj', 'Project id'), session_id: pathSegment(ContextKey('Session id')) },
  { additionalProperties: false },
);
export const EndUserParams = Type.Object(
  { project_id: IdParam('prj', 'Project id'), user_id: pathSegment(ContextKey('End-user id')) },
  { additionalProperties: false },
);

/** One distinct value of a field of a project's records (`GET …/runs/values`, `GET …/scores/values`): what a filter takes. */
export const FieldValueSchema = NamedRecord('FieldValue', {
  value: Type.String({ description: 'The value as the filter of the same name takes it' }),
});
export const FieldValuePage = recordPage('FieldValue');

/** The longest prefix a values list is narrowed by. */
export const MAX_VALUE_PREFIX = 256;
export const ValuePrefix = Type.String({
  minLength: 1,
  maxLength: MAX_VALUE_PREFIX,
  description: 'Only the values that start with this text, compared case-sensitively, character for character',
});
