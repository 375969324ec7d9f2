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

/** Whether the grant reaches the project (a token narrowed to projects reaches only those). */
export function reaches(grant: Grant, projectId: string): boolean {
  return grant.projects === undefined || grant.projects.has(projectId);
}

/**
 * What a caller reaches, as a key: its organization, or for a token narrowed to projects those projects too
 * (the read cache answers callers of one reach alike: the projects list differs between them).
 */
export function reachOf(grant: Grant & { organizationId: string }): string {
  return grant.projects === undefined ? grant.organizationId : `${grant.organizationId}:${[...grant.projects].sort().join(',')}`;
}

/** Throws the 403 problem unless the principal's current role grants the scope and its token is not narrowed to others. */
export function assertCan(grant: Grant, scope: Scope): void {
  if (!can(grant.role, scope)) {
    throw problems.forbidden(`Your role (${grant.role}) does not allow ${scope}.`);
  }
  if (grant.scopes !== undefined && !grant.scopes.has(scope)) {
    throw problems.forbidden(`This token is limited to ${describeScopes(grant.scopes)}; it does not allow ${scope}.`);
  }
}

/** A token's scopes as a sentence's list. */
function describeScopes(scopes: ReadonlySet<Scope>): string {
  return scopes.size === 0 ? 'no scope' : SCOPES.filter((scope) => scopes.has(scope)).join(', ');
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
