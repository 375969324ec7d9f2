// The audit log's vocabulary, dependency-free: the server's writer (db/audit.ts), the API's schemas and the
// dashboard's filter read the same lists.

/** Every action the audit log records. */
export const AUDIT_ACTIONS = [
  'session.created',
  'token.created',
  'token.rotated',
  'token.revoked',
  'token.reuse_detected',
  'member.added',
  'member.role_changed',
  'member.removed',
  'invitation.created',
  'invitation.deleted',
  'organization.updated',
  'model_connection.created',
  'model_connection.updated',
  'model_connection.deleted',
  'project.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const ACTOR_CREDENTIAL_KINDS = ['personal_access_token', 'session', 'cli'] as const;
export type ActorCredentialKind = (typeof ACTOR_CREDENTIAL_KINDS)[number];
