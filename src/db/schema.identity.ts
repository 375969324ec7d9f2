/** Table types (Kysely): organizations, users and their access: memberships, tokens, sessions, sign-in, keys, and projects. Composed into `Database` by schema.ts. */
import type { Millis } from './schema.millis.js';

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: string;
  created_at: Millis;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  created_at: Millis;
}

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: string;
  created_at: Millis;
}

export interface PersonalAccessTokensTable {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  /** SHA-256 of the token string; the string itself is never stored. */
  token_hash: string;
  created_at: Millis;
  expires_at: Millis;
  last_used_at: Millis | null;
  revoked_at: Millis | null;
  /** The original token's id for every token rotated from it; null for a token never rotated. */
  family_id: string | null;
  /** 'revoked' or 'rotated' once revoked_at is set. */
  revoked_reason: string | null;
  /** The scopes the token is narrowed to, a JSON array of the permission table's scope names; null: every scope of its user's role. */
  scopes: string | null;
  /** The projects the token is narrowed to, a JSON array of project ids; null: every project. */
  project_ids: string | null;
}

export interface OrganizationOriginsTable {
  organization_id: string;
  origin: string;
  source: 'organization' | 'operator';
  created_at: Millis;
}

export interface InvitationsTable {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  invited_by: string;
  created_at: Millis;
}

export interface SessionsTable {
  id: string;
  /** SHA-256 of the cookie's secret; the secret itself is never stored. */
  secret_hash: string;
  user_id: string;
  organization_id: string;
  created_at: Millis;
  last_seen_at: Millis;
  /** The absolute end of the session. */
  expires_at: Millis;
  revoked_at: Millis | null;
}

export interface AuthRequestsTable {
  state_hash: string;
  nonce: string;
  code_verifier: string;
  created_at: Millis;
  expires_at: Millis;
}

export interface ServiceKeysTable {
  kid: string;
  purpose: 'signing' | 'cursor' | 'secret';
  algorithm: string;
  public_key: string | null;
  private_key: string;
  created_at: Millis;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  /** Lower-cased name, computed in one place (JS) so search and uniqueness behave alike on both engines. */
  name_key: string;
  description: string;
  created_at: Millis;
  updated_at: Millis;
}

/** The audit log: an organization's security-relevant events (migration 029). */
export interface AuditEventsTable {
  id: string;
  organization_id: string;
  created_at: Millis;
  /** Who acted; null for the service itself (a reused token's family revoked, say). */
  actor_user_id: string | null;
  /** The credential they acted with: 'personal_access_token', 'session', or 'cli' (the bootstrap command). */
  actor_credential_kind: string | null;
  actor_credential_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  /** A JSON object: what changed, never a secret. */
  details: string;
}
