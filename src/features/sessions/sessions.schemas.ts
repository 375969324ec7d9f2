import { Type, type Static } from '@sinclair/typebox';
import { listQuery, recordPage } from '../../lib/pagination.js';
import { NamedRecord } from '../../schemas/common.js';
import { rollupProperties } from '../traces/traces.schemas.js';
import { metadataFilters, runFilterProperties } from '../query/filters.schemas.js';
import { ScoreSummaries } from '../query/score-summaries.schemas.js';

const Count = Type.Integer({ minimum: 0 });

const activity = {
  ...rollupProperties,
  startTime: Type.String({ format: 'date-time', description: 'Its first activity: the earliest start of its runs' }),
  endTime: Type.String({ format: 'date-time', description: 'Its last activity: the latest end of its runs (the start of one still running)' }),
  traceCount: Count,
};

export const SessionSchema = NamedRecord('Session', {
  sessionId: Type.String(),
  projectId: Type.String(),
  ...activity,
  userId: Type.Union([Type.String(), Type.Null()], { description: 'The end user of its first trace that names one' }),
  scores: ScoreSummaries('session'),
});
export type Session = Static<typeof SessionSchema>;
export const SessionPage = recordPage('Session');

export const EndUserSchema = NamedRecord('EndUser', { userId: Type.String(), projectId: Type.String(), ...activity, sessionCount: Count });
export type EndUser = Static<typeof EndUserSchema>;
export const EndUserPage = recordPage('EndUser');

/** The most traces a session's or end user's page lists (its totals always count them all). */
export const MAX_LISTED_TRACES = 1000;
const tracesOf = (of: string) =>
  Type.Array(Type.Ref('Trace'), { description: `Its traces, oldest first: the ${of} as it happened (at most ${MAX_LISTED_TRACES.toLocaleString('en-US')})` });
const truncated = Type.Boolean({
  description: `True when it has more than ${MAX_LISTED_TRACES.toLocaleString('en-US')} traces: list them with the traces list's filter`,
});

export const SessionDetailSchema = Type.Object(
  { session: Type.Ref('Session'), traces: tracesOf('conversation'), truncated },
  { title: 'SessionDetail', additionalProperties: false },
);
export const EndUserDetailSchema = Type.Object(
  { user: Type.Ref('EndUser'), traces: tracesOf('user’s activity'), truncated },
  { title: 'EndUserDetail', additionalProperties: false },
);

/** The sessions and end-users lists' query: a page, and the runs list's filters (a session or user matches when one of its runs does). */
export const ListActivityQuery = listQuery(runFilterProperties, { patternProperties: metadataFilters });
