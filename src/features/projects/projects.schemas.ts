import { Type, type Static } from '@sinclair/typebox';
import { Timestamp, TRIMMED_TEXT_PATTERN } from '../../schemas/common.js';
import { pageQueryProperties, pageSchema } from '../../lib/pagination.js';

const ProjectName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: TRIMMED_TEXT_PATTERN,
  description: 'Unique per organization (case-insensitive); no leading or trailing spaces.',
});
const Description = Type.String({ maxLength: 2000 });

export const ProjectSchema = Type.Object(
  { id: Type.String(), name: Type.String(), description: Type.String(), createdAt: Timestamp, updatedAt: Timestamp },
  { $id: 'Project', title: 'Project', additionalProperties: false },
);
export type Project = Static<typeof ProjectSchema>;

export const ProjectPage = pageSchema(Type.Ref('Project'), 'ProjectPage');

export const ListProjectsQuery = Type.Object(
  { ...pageQueryProperties, name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive substring of the name' })) },
  { additionalProperties: false },
);

export const CreateProjectBody = Type.Object({ name: ProjectName, description: Type.Optional(Description) }, { additionalProperties: false });

export const UpdateProjectBody = Type.Object(
  { name: Type.Optional(ProjectName), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
