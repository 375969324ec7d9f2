import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** Where a project's row lives: every query of it names both the organization and the project (tenancy). */
export interface ProjectScope {
  organizationId: string;
  projectId: string;
}

/**
 * A project's rows, as `.where(inProject(scope))`: the condition every query of a project's own table
 * (annotation queues and items, evaluator rules) is bound by. The columns are the query's table's.
 */
export const inProject = (scope: ProjectScope): RawBuilder<SqlBool> =>
  sql<SqlBool>`(organization_id = ${scope.organizationId} and project_id = ${scope.projectId})`;
