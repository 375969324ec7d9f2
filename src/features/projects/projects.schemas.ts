import { Type, type Static } from '@sinclair/typebox';
import { NamedRecord, recordTimes, TrimmedText } from '../../schemas/common.js';
import { listQuery, nameContains, recordPage } from '../../lib/pagination.js';

const ProjectName = TrimmedText(100, 'Unique per organization (case-insensitive); no leading or trailing spaces.');
const Description = Type.String({ maxLength: 2000 });

export const ProjectSchema = NamedRecord('Project', {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  ...recordTimes,
});
export type Project = Static<typeof ProjectSchema>;

export const ProjectPage = recordPage('Project');

export const ListProjectsQuery = listQuery({ name: nameContains(100) });

export const CreateProjectBody = Type.Object({ name: ProjectName, description: Type.Optional(Description) }, { additionalProperties: false });

export const UpdateProjectBody = Type.Object(
  { name: Type.Optional(ProjectName), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
