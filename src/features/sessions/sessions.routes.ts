import type { App, Deps } from '../../deps.js';
import { paginate } from '../../lib/pagination.js';
import { filteredListRequest } from '../query/index.js';
import { requestedProject } from '../projects/index.js';
import { getActivity, listActivity, sessionsWithScores, toEndUser, type ActivityRow } from './sessions.repo.js';
import { EndUserDetailSchema, EndUserPage, ListActivityQuery, SessionDetailSchema, SessionPage } from './sessions.schemas.js';
import { ProjectParams, EndUserParams, SessionParams } from '../../schemas/records.js';

const ORDER =
  'Newest activity first (the latest end of its runs), then id. Its activity moves forward as runs arrive, so a walk that runs while it does may pass over one that became newer.';

export function sessionRoutes(app: App, { db, dialect, cursors }: Deps): void {
  for (const kind of ['session', 'user'] as const) {
    const session = kind === 'session';
    const plural = session ? 'sessions' : 'users';
    const tags = [session ? 'Sessions' : 'End users'];
    // Sessions carry their scores' summaries (one query per page); end users are not scored.
    const toItems = (projectId: string, rows: ActivityRow[]) =>
      session ? sessionsWithScores(db, dialect, projectId, rows) : Promise.resolve(rows.map((row) => toEndUser(projectId, row)));

    app.get(`/projects/:project_id/${plural}`, {
      config: { scope: 'runs:read', cacheable: true },
      schema: {
        operationId: session ? 'listSessions' : 'listEndUsers',
        tags,
        summary: session ? 'List sessions' : 'List end users',
        description: `${session ? 'Each conversation (the runs’ sessionId)' : 'Each end user (the runs’ userId)'} with its totals. ${ORDER} The filters are the runs list’s (\`q\` included): ${session ? 'a session' : 'an end user'} matches when at least one run of its traces matches them all (whichever run of a trace named it).${session ? ' Each session carries `scores`: the summaries of the scores given to the session itself.' : ''}`,
        params: ProjectParams,
        querystring: ListActivityQuery,
        response: { 200: session ? SessionPage : EndUserPage },
      },
      handler: async (request) => {
        const { project, filters, page, identity } = await filteredListRequest(db, request, plural);
        const found = await paginate(
          cursors,
          page,
          identity,
          (after, take) => listActivity(db, dialect, project.id, kind, filters, after, take),
          (row) => row,
        );
        return { ...found, items: await toItems(project.id, found.items) };
      },
    });

    app.get(`/projects/:project_id/${plural}/:${kind}_id`, {
      config: { scope: 'runs:read', cacheable: true },
      schema: {
        operationId: session ? 'getSession' : 'getEndUser',
        tags,
        summary: session ? 'Get a session with its traces' : 'Get an end user with their traces',
        description: session
          ? 'The session’s totals and its traces oldest first: the conversation as it happened.'
          : 'The end user’s totals and their traces oldest first.',
        params: session ? SessionParams : EndUserParams,
        response: { 200: session ? SessionDetailSchema : EndUserDetailSchema },
      },
      handler: async (request) => {
        const project = await requestedProject(db, request);
        const params = request.params as { session_id?: string; user_id?: string };
        const { row, traces, truncated } = await getActivity(db, dialect, project.id, kind, (session ? params.session_id : params.user_id)!);
        const [item] = await toItems(project.id, [row]);
        return session ? { session: item, traces, truncated } : { user: item, traces, truncated };
      },
    });
  }
}
