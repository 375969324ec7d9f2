// The wire types of organization.ts and records.ts: identity and tokens, the organization, model prices,
// projects, runs, traces, sessions and end users, saved views (derived as types-base.ts says).
import type { AuditEventSchema, ListAuditQuery } from '../../../src/features/audit/audit.schemas.js';
import type { RoleSchema } from '../../../src/schemas/common.js';
import type { MeSchema } from '../../../src/features/me/me.schemas.js';
import type { SignInStatusSchema } from '../../../src/features/auth/auth.schemas.js';
import type { createTokenBody, NewTokenSchema, TokenRecordSchema } from '../../../src/features/tokens/tokens.schemas.js';
import type {
  CreateInvitationBody,
  InvitationSchema,
  MemberSchema,
  OrganizationDetailSchema,
  OrganizationTokenSchema,
  UpdateMemberBody,
  UpdateOrganizationBody,
} from '../../../src/features/organizations/organizations.schemas.js';
import type {
  BuiltinModelPriceSchema,
  CreateModelPriceBody,
  ListBuiltinPricesQuery,
  ListModelPricesQuery,
  ModelPriceSchema,
  UpdateModelPriceBody,
} from '../../../src/features/models/models.schemas.js';
import type { CreateProjectBody, ListProjectsQuery, ProjectSchema, UpdateProjectBody } from '../../../src/features/projects/projects.schemas.js';
import type {
  BatchResultSchema,
  ListRunsQuery,
  RunInputSchema,
  RunPatchSchema,
  RunValuesQuery as RunValuesQuerySchema,
  RunWithScoresSchema,
} from '../../../src/features/runs/runs.schemas.js';
import type { FieldValueSchema } from '../../../src/schemas/records.js';
import type { RunMetricsQuery as RunMetricsQuerySchema, RunMetricsSchema } from '../../../src/features/query/metrics.schemas.js';
import type {
  ListTracesQuery,
  TraceDetailSchema,
  TraceMetricsQuery as TraceMetricsQuerySchema,
  TraceMetricsSchema,
  TraceSchema,
} from '../../../src/features/traces/traces.schemas.js';
import type { EndUserSchema, ListActivityQuery, SessionSchema } from '../../../src/features/sessions/sessions.schemas.js';
import type { CreateViewBody, ListViewsQuery, SavedViewSchema, UpdateViewBody } from '../../../src/features/views/views.schemas.js';
import type { PageParams, ProblemDocument, Static } from './types-base.js';

// Identity and tokens
export type Role = Static<typeof RoleSchema>;
export type Me = Static<typeof MeSchema>;
/** What the dashboard's sign-in page is told by `GET /auth/status` (outside /v1). */
export type SignInStatus = Static<typeof SignInStatusSchema>;
export type TokenRecord = Static<typeof TokenRecordSchema>;
export type NewToken = Static<typeof NewTokenSchema>;
export type CreateTokenInput = Static<ReturnType<typeof createTokenBody>>;

// Organization
export type Organization = Static<typeof OrganizationDetailSchema>;
export type UpdateOrganizationInput = Static<typeof UpdateOrganizationBody>;
export type Member = Static<typeof MemberSchema>;
export type UpdateMemberInput = Static<typeof UpdateMemberBody>;
export type Invitation = Static<typeof InvitationSchema>;
export type CreateInvitationInput = Static<typeof CreateInvitationBody>;
export type OrganizationToken = Static<typeof OrganizationTokenSchema>;
export type AuditEvent = Static<typeof AuditEventSchema>;
export type AuditFilters = Omit<Static<typeof ListAuditQuery>, PageParams>;

// Model prices
export type ModelPrice = Static<typeof ModelPriceSchema>;
export type BuiltinModelPrice = Static<typeof BuiltinModelPriceSchema>;
export type CreateModelPriceInput = Static<typeof CreateModelPriceBody>;
export type UpdateModelPriceInput = Static<typeof UpdateModelPriceBody>;
export type ModelPriceFilters = Omit<Static<typeof ListModelPricesQuery>, PageParams>;
export type BuiltinModelPriceFilters = Omit<Static<typeof ListBuiltinPricesQuery>, PageParams>;

// Projects
export type Project = Static<typeof ProjectSchema>;
export type CreateProjectInput = Static<typeof CreateProjectBody>;
export type UpdateProjectInput = Static<typeof UpdateProjectBody>;
export type ProjectFilters = Omit<Static<typeof ListProjectsQuery>, PageParams>;

// Runs
/** A run as every answer gives it: its record and, in `scores`, the summaries of the scores given to it. */
export type Run = Static<typeof RunWithScoresSchema>;
export type RunKind = Run['kind'];
export type RunStatus = Run['status'];
/** A run to create (`POST …/runs`, one item of `…/runs/batch`). */
export type RunCreate = Static<typeof RunInputSchema>;
export type RunPatch = Static<typeof RunPatchSchema>;
type BatchItem = Static<typeof BatchResultSchema>['results'][number];
/** One result per run of a batch, in order; a rejected run carries its own problem. */
export type RunBatchResult = { results: (Omit<BatchItem, 'problem'> & { problem?: ProblemDocument })[] };
export type RunMetrics = Static<typeof RunMetricsSchema>;
/** `metadata.<key>` filters: exact match on a top-level metadata value. */
export type MetadataFilters = { [key: `metadata.${string}`]: string | number | boolean };
type RunFilterFields = Omit<Static<typeof ListRunsQuery>, PageParams | 'parentRunId'> & {
  /** A run id, or `null` for root runs only. */
  parentRunId?: string | null;
};
/** The runs list's filters (also those of the runs metrics). */
export type RunFilters = RunFilterFields & MetadataFilters;
export type RunMetricsQuery = Omit<Static<typeof RunMetricsQuerySchema>, 'parentRunId'> & Pick<RunFilterFields, 'parentRunId'> & MetadataFilters;
/** One distinct value of a field (`GET …/runs/values`, `GET …/scores/values`): what the filter of that name takes. */
export type FieldValue = Static<typeof FieldValueSchema>;
type RunValuesAsked = Omit<Static<typeof RunValuesQuerySchema>, PageParams>;
/** Whose values `runs.values` lists: `key` (the metadata key) with `metadataValue`, and only with it. */
export type RunValuesQuery =
  | (Omit<RunValuesAsked, 'field' | 'key'> & { field: Exclude<RunValuesAsked['field'], 'metadataValue'> })
  | (Omit<RunValuesAsked, 'field' | 'key'> & { field: 'metadataValue'; key: string });

// Traces
export type Trace = Static<typeof TraceSchema>;
/** A trace's totals and its runs in tree order (outlines: GET the run for its inputs and outputs). */
export type TraceDetail = Omit<Static<typeof TraceDetailSchema>, 'trace'> & { trace: Trace };
/** The traces list's filters: a trace matches when one of its runs matches them all (the time range bounds its start). */
export type TraceFilters = Omit<Static<typeof ListTracesQuery>, PageParams> & MetadataFilters;
/** Traces counted by their start (`GET …/traces/metrics`): the traces list's filters, a window and a bucket. */
export type TraceMetricsQuery = Static<typeof TraceMetricsQuerySchema> & MetadataFilters;
export type TraceMetrics = Static<typeof TraceMetricsSchema>;
/** The sessions and end-users lists' filters: the runs list's (one of its runs must match them all). */
export type ActivityFilters = Omit<Static<typeof ListActivityQuery>, PageParams> & MetadataFilters;

// Sessions and end users
export type Session = Static<typeof SessionSchema>;
export type EndUser = Static<typeof EndUserSchema>;
/** A session's totals and its traces, oldest first (the conversation as it happened). */
export type SessionDetail = { session: Session; traces: Trace[]; truncated: boolean };
export type EndUserDetail = { user: EndUser; traces: Trace[]; truncated: boolean };

// Saved views
export type SavedView = Static<typeof SavedViewSchema>;
export type CreateSavedViewInput = Static<typeof CreateViewBody>;
export type UpdateSavedViewInput = Static<typeof UpdateViewBody>;
export type SavedViewFilters = Omit<Static<typeof ListViewsQuery>, PageParams>;
