import type { Kysely } from 'kysely';
import { reaches, refusal } from '../../auth/permissions.js';
import type { Principal } from '../../auth/tokens.js';
import type { Database, ProjectRow } from '../../db/schema.js';
import { problems } from '../../lib/problems.js';
import { createProject, findProject, projectsCreatedSince } from '../projects/index.js';

/** A project id (never taken as the name of a project to create). */
const PROJECT_ID = /^prj_[0-9a-z]{26}$/;

/** How many projects one request, and one organization in an hour, may create through OTLP. */
export interface ProjectCreationLimits {
  perRequest: number;
  perHour: number;
}

const HOUR_MS = 3_600_000;

/**
 * The project of each resource's spans, created on first use when the caller may create projects
 * (else 404), within the creation limits (past them, the resource's spans are refused with the reason).
 * A project named by the header must exist or be creatable too; names that no project could have are
 * the resource's spans' rejection reason, or for the header a 400 problem.
 */
export class ProjectRouter {
  private readonly known = new Map<string, ProjectRow | { refused: string }>();
  private created = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly principal: Principal,
    private readonly now: number,
    private readonly limits: ProjectCreationLimits,
  ) {}

  async resolve(name: string): Promise<ProjectRow | { refused: string }> {
    const key = name.toLowerCase();
    const cached = this.known.get(key) ?? this.known.get(name);
    if (cached) return cached;
    const { organizationId } = this.principal;
    let project: ProjectRow | { refused: string } | null = await findProject(this.db, organizationId, name);
    // A token narrowed to projects stores into those only, and creates none; whether another exists, it is not told.
    if (this.principal.projects !== undefined && (!project || !reaches(this.principal, project.id)))
      throw problems.notFound(`Project ${name} is not one of this token's projects.`);
    if (!project && PROJECT_ID.test(name)) throw problems.notFound(`Project ${name} does not exist.`);
    if (!project) {
      const refused = refusal(this.principal, 'projects:write');
      if (refused !== null) throw problems.notFound(`Project ${name} does not exist and is not created: ${refused}`);
      project = (await this.refusal(name)) ?? (await this.create(name));
    }
    this.known.set(name, project);
    this.known.set(key, project);
    return project;
  }

  /** Why a project may not be created now, if it may not. */
  private async refusal(name: string): Promise<{ refused: string } | null> {
    const { perRequest, perHour } = this.limits;
    const why = `Project "${name}" does not exist and was not created:`;
    if (this.created >= perRequest)
      return {
        refused: `${why} one export may create at most ${perRequest} projects (SIGHTLINE_OTLP_NEW_PROJECTS_PER_REQUEST). Create it with POST /v1/projects, or send it again.`,
      };
    if ((await projectsCreatedSince(this.db, this.principal.organizationId, this.now - HOUR_MS)) >= perHour)
      return {
        refused: `${why} the organization has created ${perHour} projects in the past hour (SIGHTLINE_OTLP_NEW_PROJECTS_PER_HOUR). Create it with POST /v1/projects.`,
      };
    return null;
  }

  private async create(name: string): Promise<ProjectRow> {
    try {
      const project = await createProject(this.db, this.principal.organizationId, { name }, this.now);
      this.created++;
      return project;
    } catch (error) {
      // Created meanwhile by a concurrent export.
      const project = await findProject(this.db, this.principal.organizationId, name);
      if (!project) throw error;
      return project;
    }
  }
}
