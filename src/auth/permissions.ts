import { problems } from '../lib/problems.js';
import type { Role, Scope } from './roles.js';
import { can, SCOPES } from './roles.js';

export { can, isRole, isScope, mayAssignRole, ROLE_SCOPES, ROLES, SCOPES, type Role, type Scope } from './roles.js';

/**
 * Who is asking, as far as permission goes: the user's current role, and what their credential is narrowed
 * to when it is a scoped personal access token (`scopes`, `projects`; undefined: not narrowed).
 */
export interface Grant {
  role: Role;
  /** The scopes the token may use, of those its user's role grants; undefined: all of them. */
  scopes?: ReadonlySet<Scope> | undefined;
  /** The projects (ids) the token reaches; undefined: every project of the organization. */
  projects?: ReadonlySet<string> | undefined;
}

/** Whether the grant allows the scope: the user's current role grants it, and the token is not narrowed to others. */
export function allows(grant: Grant, scope: Scope): boolean {
  return can(grant.role, scope) && (grant.scopes === undefined || grant.scopes.has(scope));
}

/** The scopes a grant allows now (its role's, intersected with its token's), in the permission table's order. */
export function allowedScopes(grant: Grant): Scope[] {
  return SCOPES.filter((scope) => allows(grant, scope));
}

/** Scopes in the permission table's order (how a token's scopes are stored and shown). */
export function inTableOrder(scopes: ReadonlySet<Scope> | readonly Scope[]): Scope[] {
  const set: ReadonlySet<Scope> = scopes instanceof Set ? scopes : new Set(scopes);
  return SCOPES.filter((scope) => set.has(scope));
}

/** What a grant's token is narrowed to, as a token's record shows it (null: not narrowed), its projects sorted. */
export function grantLimits(grant: Grant): { scopes: Scope[] | null; projectIds: string[] | null } {
  return {
    scopes: grant.scopes === undefined ? null : inTableOrder(grant.scopes),
    projectIds: grant.projects === undefined ? null : [...grant.projects].sort(),
  };
}

/** Whether the grant reaches the project (a token narrowed to projects reaches only those). */
export function reaches(grant: Grant, projectId: string): boolean {
  return grant.projects === undefined || grant.projects.has(projectId);
}

/**
 * What a caller reaches, as a key: its organization, or for a token narrowed to projects those projects too
 * (the read cache answers callers of one reach alike: the projects list differs between them).
 */
export function reachOf(grant: Grant & { organizationId: string }): string {
  const { projectIds } = grantLimits(grant);
  return projectIds === null ? grant.organizationId : `${grant.organizationId}:${projectIds.join(',')}`;
}

/** Why the grant does not allow the scope (its role, or its token's scopes), or null when it does. */
export function refusal(grant: Grant, scope: Scope): string | null {
  if (!can(grant.role, scope)) return `Your role (${grant.role}) does not allow ${scope}.`;
  if (grant.scopes !== undefined && !grant.scopes.has(scope))
    return `This token is limited to ${grant.scopes.size === 0 ? 'no scope' : inTableOrder(grant.scopes).join(', ')}; it does not allow ${scope}.`;
  return null;
}

/** Throws the 403 problem unless the principal's current role grants the scope and its token is not narrowed to others. */
export function assertCan(grant: Grant, scope: Scope): void {
  const why = refusal(grant, scope);
  if (why !== null) throw problems.forbidden(why);
}

/**
 * Whether a token of the same user narrowed to `narrower` is within what `grant`'s token may do (the role is
 * theirs alike): a token narrowed to scopes or projects mints, rotates and revokes only tokens narrowed as
 * far at least.
 */
export function covers(grant: Grant, narrower: { scopes: readonly Scope[] | null; projectIds: readonly string[] | null }): boolean {
  const within = <T>(wide: ReadonlySet<T> | undefined, narrow: readonly T[] | null) =>
    wide === undefined || (narrow !== null && narrow.every((item) => wide.has(item)));
  return within(grant.scopes, narrower.scopes) && within(grant.projects, narrower.projectIds);
}
