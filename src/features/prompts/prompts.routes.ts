import type { Static } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { paginate } from '../../lib/pagination.js';
import { Problem, problems } from '../../lib/problems.js';
import { childList } from '../page-route.js';
import { routeKit } from '../route-kit.js';
import { labelsOf, listLabelEvents, removeLabel, setLabel, toLabelEvent } from './labels.repo.js';
import {
  createPrompt,
  createVersion,
  deletePrompt,
  getVersion,
  listPrompts,
  listVersions,
  renderTemplate,
  requirePrompt,
  toPrompt,
  toVersion,
  updatePromptDescription,
} from './prompts.repo.js';
import {
  CreatePromptBody,
  CreateVersionBody,
  LabelEventPage,
  LabelParams,
  ListPromptsQuery,
  PromptPage,
  PromptParams,
  PromptVersionPage,
  RenderBody,
  RenderResultSchema,
  SetLabelBody,
  UpdatePromptBody,
  VersionParams,
} from './prompts.schemas.js';

const tags = ['Prompts'];

export function promptRoutes(app: App, { db, dialect, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });
  const withLabels = async (row: Parameters<typeof toPrompt>[0]) => toPrompt(row, (await labelsOf(db, [row.id])).get(row.id) ?? {});

  app.get('/prompts', {
    config: { scope: 'prompts:read' },
    schema: {
      operationId: 'listPrompts',
      tags,
      summary: 'List prompts',
      description: 'Newest first (by creation). Filters: `name` (substring), `label`.',
      querystring: ListPromptsQuery,
      response: { 200: PromptPage },
    },
    handler: async (request) => {
      const { organizationId } = request.principal;
      const { limit, cursor, ...filters } = request.query;
      const page = await paginate(
        cursors,
        { limit, cursor },
        { endpoint: 'prompts', organizationId, filters },
        (after, take) => listPrompts(db, organizationId, filters, after, take),
        (row) => row,
      );
      const labels = await labelsOf(
        db,
        page.items.map((row) => row.id),
      );
      return { ...page, items: page.items.map((row) => toPrompt(row, labels.get(row.id) ?? {})) };
    },
  });

  route.create(
    '/prompts',
    {
      scope: 'prompts:write',
      operationId: 'createPrompt',
      summary: 'Create a prompt with its version 1',
      description: 'The name is a slug unique in the organization (a taken one is a 409), usable in place of the id.',
      body: CreatePromptBody,
      answer: 'Prompt',
      problems: [409],
    },
    async (request) => toPrompt(await createPrompt(db, request.principal, request.body, clock.now()), {}),
  );

  route.get(
    '/prompts/:prompt_id',
    {
      scope: 'prompts:read',
      operationId: 'getPrompt',
      summary: 'Get a prompt (by id or name)',
      description: 'With its labels. Answers 304 while `If-None-Match` holds its ETag.',
      params: PromptParams,
      answer: 'Prompt',
      etag: true,
    },
    async (request) => withLabels(await requirePrompt(db, request.principal.organizationId, request.params.prompt_id)),
  );

  route.patch(
    '/prompts/:prompt_id',
    {
      scope: 'prompts:write',
      operationId: 'updatePrompt',
      summary: "Update a prompt's description",
      description: 'Templates change by creating a version, never in place.',
      params: PromptParams,
      body: UpdatePromptBody,
      answer: 'Prompt',
    },
    async (request) => {
      const prompt = await requirePrompt(db, request.principal.organizationId, request.params.prompt_id);
      const now = clock.now();
      await updatePromptDescription(db, prompt.id, request.body.description, now);
      return withLabels({ ...prompt, description: request.body.description, updated_at: now });
    },
  );

  route.delete(
    '/prompts/:prompt_id',
    {
      scope: 'prompts:delete',
      operationId: 'deletePrompt',
      summary: 'Delete a prompt with its versions and labels',
      description: 'With its versions, labels and label history; the name is free again.',
      params: PromptParams,
    },
    async (request) => deletePrompt(db, (await requirePrompt(db, request.principal.organizationId, request.params.prompt_id)).id),
  );

  /** A prompt's child lists (versions, label moves) are bound to the prompt. */
  const promptOf = async (organizationId: string, params: Static<typeof PromptParams>) => {
    const prompt = await requirePrompt(db, organizationId, params.prompt_id);
    return { id: prompt.id, parents: [prompt.id] };
  };

  route.page(
    '/prompts/:prompt_id/versions',
    {
      scope: 'prompts:read',
      operationId: 'listPromptVersions',
      summary: 'List versions',
      description: 'Newest version first.',
      params: PromptParams,
      page: PromptVersionPage,
    },
    childList('prompt-versions', promptOf, (promptId, after, take) => listVersions(db, promptId, after, take)),
    toVersion,
  );

  route.create(
    '/prompts/:prompt_id/versions',
    {
      scope: 'prompts:write',
      operationId: 'createPromptVersion',
      summary: 'Create the next version',
      description: 'Versions are immutable and numbered 1, 2, 3…',
      params: PromptParams,
      body: CreateVersionBody,
      answer: 'PromptVersion',
    },
    async (request) => {
      const prompt = await requirePrompt(db, request.principal.organizationId, request.params.prompt_id);
      return toVersion(await createVersion(db, prompt.id, request.body, request.principal.userId, clock.now()));
    },
  );

  route.get(
    '/prompts/:prompt_id/versions/:version',
    {
      scope: 'prompts:read',
      operationId: 'getPromptVersion',
      summary: 'Get a version by number or label',
      description: 'Answers 304 while `If-None-Match` holds its ETag, so that clients can poll the version a label points at.',
      params: VersionParams,
      answer: 'PromptVersion',
      etag: true,
    },
    async (request) => {
      const prompt = await requirePrompt(db, request.principal.organizationId, request.params.prompt_id);
      return toVersion(await getVersion(db, prompt.id, request.params.version));
    },
  );

  route.put(
    '/prompts/:prompt_id/labels/:label',
    {
      scope: 'prompts:write',
      operationId: 'setPromptLabel',
      summary: 'Point a label at a version',
      description: 'Creates the label or moves it; every move is recorded.',
      params: LabelParams,
      body: SetLabelBody,
      answer: 'Prompt',
    },
    async (request) => {
      const prompt = await requirePrompt(db, request.principal.organizationId, request.params.prompt_id);
      await setLabel(db, dialect, prompt, request.params.label, request.body.version, request.principal.userId, clock.now());
      return withLabels(prompt);
    },
  );

  route.delete(
    '/prompts/:prompt_id/labels/:label',
    {
      scope: 'prompts:write',
      operationId: 'removePromptLabel',
      summary: 'Remove a label',
      description: 'The removal is recorded in the label history.',
      params: LabelParams,
      outcome: 'Removed',
    },
    async (request) => {
      const prompt = await requirePrompt(db, request.principal.organizationId, request.params.prompt_id);
      await removeLabel(db, dialect, prompt, request.params.label, request.principal.userId, clock.now());
    },
  );

  route.page(
    '/prompts/:prompt_id/label-history',
    {
      scope: 'prompts:read',
      operationId: 'listPromptLabelHistory',
      summary: 'Every label move',
      description: 'Newest first: who moved which label, when, from which version to which (null: created or removed).',
      params: PromptParams,
      page: LabelEventPage,
    },
    childList('prompt-label-history', promptOf, (promptId, after, take) => listLabelEvents(db, promptId, after, take)),
    toLabelEvent,
  );

  route.post(
    '/prompts/:prompt_id/render',
    {
      scope: 'prompts:read',
      operationId: 'renderPrompt',
      summary: 'Render a version with variables',
      description: 'Latest version unless `version` or `label` is given (not both). Missing and unknown variables are refused, each named.',
      params: PromptParams,
      body: RenderBody,
      answer: RenderResultSchema,
    },
    async (request) => {
      const prompt = await requirePrompt(db, request.principal.organizationId, request.params.prompt_id);
      const { version, label, variables } = request.body;
      if (version !== undefined && label !== undefined) throw problems.validation([{ pointer: '/label', detail: 'Give version or label, not both.' }]);
      // A version or label named in the body that does not exist is a fault of the body (400), like
      // a run's missing parentRunId; the prompt itself missing stays a 404.
      const row = await getVersion(db, prompt.id, String(version ?? label ?? prompt.latest_version)).catch((error: unknown) => {
        if (error instanceof Problem && error.status === 404) {
          throw problems.validation([
            {
              pointer: version !== undefined ? '/version' : '/label',
              detail: `${version !== undefined ? `Version ${version}` : `Label ${label}`} does not exist on this prompt.`,
            },
          ]);
        }
        throw error;
      });
      const template = toVersion(row).template;
      return { template, rendered: renderTemplate(template, variables) };
    },
  );
}
