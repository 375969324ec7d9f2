import { Type, type Static } from '@sinclair/typebox';
import { listQuery, pageSchema, recordPage } from '../../lib/pagination.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { KeyedRecord, NamedRecord, recordTimes, StringEnum, Timestamp } from '../../schemas/common.js';

/** A prompt's name: a slug, unique per organization, usable in place of its id (so never `prm_…`). */
export const PROMPT_NAME_PATTERN = '^(?!prm_)[a-z0-9][a-z0-9_.-]{0,99}$';
/** A label: a slug that is not a number (a version reference is either). */
export const LABEL_PATTERN = '^(?![0-9]+$)[a-z0-9][a-z0-9_.-]{0,63}$';
// The patterns bound the length too; `maxLength` says so to readers (and is not checked twice).
const PromptName = enforcedElsewhere(Type.String({ pattern: PROMPT_NAME_PATTERN }), { maxLength: 100 });
const Label = (options: { description?: string } = {}) => enforcedElsewhere(Type.String({ pattern: LABEL_PATTERN, ...options }), { maxLength: 64 });

export const ChatMessageSchema = Type.Object(
  { role: StringEnum(['system', 'user', 'assistant', 'tool'] as const), content: Type.String({ maxLength: 100_000 }) },
  { additionalProperties: false },
);
export const TemplateSchema = Type.Union([Type.String({ maxLength: 100_000 }), Type.Array(ChatMessageSchema, { minItems: 1, maxItems: 100 })], {
  description: 'A string, or chat messages; `{{name}}` marks a variable',
});
export type Template = Static<typeof TemplateSchema>;
const Config = Type.Object({}, { additionalProperties: true, description: 'Free model settings (`model`, `temperature`, …)' });

export const PromptSchema = NamedRecord('Prompt', {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  latestVersion: Type.Integer(),
  labels: KeyedRecord(Type.Integer(), { description: 'label → version' }),
  ...recordTimes,
});
export type Prompt = Static<typeof PromptSchema>;

export const PromptVersionSchema = NamedRecord('PromptVersion', {
  promptId: Type.String(),
  version: Type.Integer(),
  template: TemplateSchema,
  variables: Type.Array(Type.String()),
  config: Config,
  message: Type.String(),
  createdBy: Type.String(),
  createdAt: Timestamp,
});
export type PromptVersion = Static<typeof PromptVersionSchema>;

export const LabelEventSchema = Type.Object(
  {
    id: Type.String(),
    label: Type.String(),
    fromVersion: Type.Union([Type.Integer(), Type.Null()]),
    toVersion: Type.Union([Type.Integer(), Type.Null()]),
    actor: Type.String({ description: 'The user who moved the label' }),
    createdAt: Timestamp,
  },
  { title: 'LabelEvent', additionalProperties: false },
);

export const PromptPage = recordPage('Prompt');
export const PromptVersionPage = recordPage('PromptVersion');
export const LabelEventPage = pageSchema(LabelEventSchema, 'LabelEventPage');

const PromptRef = Type.String({ minLength: 1, maxLength: 200, description: 'Prompt id or name' });
export const PromptParams = Type.Object({ prompt_id: PromptRef }, { additionalProperties: false });
export const VersionParams = Type.Object(
  { prompt_id: PromptRef, version: Type.String({ minLength: 1, maxLength: 64, description: 'A version number or a label' }) },
  { additionalProperties: false },
);
export const LabelParams = Type.Object(
  { prompt_id: PromptRef, label: Label({ description: 'A label: a slug that is not a number' }) },
  { additionalProperties: false },
);

export const ListPromptsQuery = listQuery({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Substring of the name' })),
  label: Type.Optional(Label({ description: 'Only prompts that have this label' })),
});

const VersionFields = {
  template: TemplateSchema,
  config: Type.Optional(Config),
  message: Type.Optional(Type.String({ maxLength: 2000, description: 'What changed, like a commit message' })),
};
export const CreatePromptBody = Type.Object(
  { name: PromptName, description: Type.Optional(Type.String({ maxLength: 2000 })), ...VersionFields },
  { additionalProperties: false },
);
export const CreateVersionBody = Type.Object(VersionFields, { additionalProperties: false });
export const UpdatePromptBody = Type.Object({ description: Type.String({ maxLength: 2000 }) }, { additionalProperties: false });
/** A version number: one the prompt does not have is refused by the route (and no prompt has 2^31). */
const VersionNumber = enforcedElsewhere(Type.Integer({ minimum: 1, format: 'int32' }), { maximum: 2_147_483_647 });
export const SetLabelBody = Type.Object({ version: VersionNumber }, { additionalProperties: false });
// "Version or label, not both" is the route's rule (a fault at /label).
export const RenderBody = enforcedElsewhere(
  Type.Object(
    {
      version: Type.Optional(VersionNumber),
      label: Type.Optional(Label({ description: 'Not with `version`' })),
      variables: KeyedRecord(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    },
    { additionalProperties: false, description: 'The latest version unless `version` or `label` names one (not both).' },
  ),
  { not: { required: ['version', 'label'] } },
);
export const RenderResultSchema = Type.Object({ template: TemplateSchema, rendered: TemplateSchema }, { title: 'RenderResult', additionalProperties: false });
