/**
 * The one permission table (Role → scopes), shared by the server and the dashboard (which imports this
 * file as it is: it depends on nothing). The server is the authority; the dashboard only hides what a
 * role cannot do.
 */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const READ = ['organization:read', 'projects:read', 'runs:read', 'prompts:read', 'monitors:read', 'models:read', 'scores:read'] as const;
const WRITE = ['projects:write', 'runs:write', 'prompts:write', 'monitors:write', 'scores:write'] as const;
const ADMIN = [
  'projects:delete',
  'prompts:delete',
  'monitors:delete',
  'models:write',
  'quality:admin',
  'tokens:admin',
  'members:admin',
  'organization:admin',
] as const;
const OWNER = ['owners:admin'] as const;

export type Scope = (typeof READ)[number] | (typeof WRITE)[number] | (typeof ADMIN)[number] | (typeof OWNER)[number];

export const SCOPES: readonly Scope[] = [...READ, ...WRITE, ...ADMIN, ...OWNER];

export const ROLE_SCOPES: Record<Role, ReadonlySet<Scope>> = {
  viewer: new Set<Scope>([...READ]),
  member: new Set<Scope>([...READ, ...WRITE]),
  admin: new Set<Scope>([...READ, ...WRITE, ...ADMIN]),
  owner: new Set<Scope>([...READ, ...WRITE, ...ADMIN, ...OWNER]),
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

export function can(role: Role, scope: Scope): boolean {
  return ROLE_SCOPES[role].has(scope);
}

/**
 * Whether `actor` may give someone the role `to` (an invitation, a role change) or change a member who
 * has the role `from`: admins manage roles below owner; only an owner grants or takes `owner`. The
 * last-owner rule needs the database and lives with the members repository.
 */
export function mayAssignRole(actor: Role, change: { to?: string | null; from?: string | null }): boolean {
  return (change.to !== 'owner' && change.from !== 'owner') || can(actor, 'owners:admin');
}
