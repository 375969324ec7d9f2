import { problems } from '../lib/problems.js';
import type { Role, Scope } from './roles.js';
import { can } from './roles.js';

export { can, isRole, isScope, mayAssignRole, ROLE_SCOPES, ROLES, SCOPES, type Role, type Scope } from './roles.js';

/** Throws the 403 problem unless the principal's current role grants the scope. */
export function assertCan(principal: { role: Role }, scope: Scope): void {
  if (!can(principal.role, scope)) {
    throw problems.forbidden(`Your role (${principal.role}) does not allow ${scope}.`);
  }
}
