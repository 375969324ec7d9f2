import type { ListOptions, Paginated } from './pagination.js';
import { Collection, Resource, seg, type CallOptions } from './resource.js';
import type {
  BuiltinModelPrice,
  BuiltinModelPriceFilters,
  CreateInvitationInput,
  CreateModelPriceInput,
  AuditEvent,
  AuditFilters,
  CreateTokenInput,
  Invitation,
  Me,
  Member,
  ModelPrice,
  ModelPriceFilters,
  NewToken,
  Organization,
  OrganizationToken,
  TokenRecord,
  UpdateMemberInput,
  UpdateModelPriceInput,
  UpdateOrganizationInput,
} from './types.js';

/** `GET /v1/me`. */
export class MeResource extends Resource {
  /** The user, organization, role and the credential (`kind`, `id`, `expiresAt`). */
  get(options: CallOptions = {}): Promise<Me> {
    return this.read('/me', options);
  }
}

/** `/v1/tokens`: your personal access tokens. */
export class TokensResource extends Resource {
  list(options: ListOptions = {}): Paginated<TokenRecord> {
    return this.paginate<TokenRecord>('/tokens', {}, options);
  }
  /** Mints a token; `token` is shown only in this answer. */
  create(body: CreateTokenInput, options: CallOptions = {}): Promise<NewToken> {
    return this.send('POST', '/tokens', body, options);
  }
  /**
   * A new token with the same name and lifetime; the old one stops working. Never retried: rotating
   * a rotated-away token again revokes the whole family. See also `rotateBeforeExpiry`.
   */
  rotate(tokenId: string, options: CallOptions = {}): Promise<NewToken> {
    return this.send('POST', `/tokens/${seg(tokenId)}/rotate`, undefined, options, false);
  }
  async revoke(tokenId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/tokens/${seg(tokenId)}`, options);
  }
}

class MembersResource extends Resource {
  list(options: ListOptions = {}): Paginated<Member> {
    return this.paginate<Member>('/organization/members', {}, options);
  }
  /** Changes a member's role (only an owner grants or takes `owner`). */
  update(userId: string, body: UpdateMemberInput, options: CallOptions = {}): Promise<Member> {
    return this.send('PATCH', `/organization/members/${seg(userId)}`, body, options);
  }
  async remove(userId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/organization/members/${seg(userId)}`, options);
  }
}

class InvitationsResource extends Resource {
  list(options: ListOptions = {}): Paginated<Invitation> {
    return this.paginate<Invitation>('/organization/invitations', {}, options);
  }
  create(body: CreateInvitationInput, options: CallOptions = {}): Promise<Invitation> {
    return this.send('POST', '/organization/invitations', body, options);
  }
  /** Withdraws an invitation. */
  async delete(invitationId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/organization/invitations/${seg(invitationId)}`, options);
  }
}

class OrganizationTokensResource extends Resource {
  /** Every member's tokens (admins only; never the secrets). Revoke with `client.tokens.revoke`. */
  list(options: ListOptions = {}): Paginated<OrganizationToken> {
    return this.paginate<OrganizationToken>('/organization/tokens', {}, options);
  }
}

/** `/v1/organization`. */
/** The organization's audit log (admins): security-relevant events, newest first. */
class AuditLogResource extends Resource {
  list(filters: AuditFilters = {}, options: ListOptions = {}): Paginated<AuditEvent> {
    return this.paginate<AuditEvent>('/organization/audit-log', filters, options);
  }
}

export class OrganizationResource extends Resource {
  readonly members = new MembersResource(this.http);
  readonly invitations = new InvitationsResource(this.http);
  readonly tokens = new OrganizationTokensResource(this.http);
  readonly auditLog = new AuditLogResource(this.http);
  get(options: CallOptions = {}): Promise<Organization> {
    return this.read('/organization', options);
  }
  /** Renames the organization or replaces its `allowedOrigins` (admins). */
  update(body: UpdateOrganizationInput, options: CallOptions = {}): Promise<Organization> {
    return this.send('PATCH', '/organization', body, options);
  }
}

/**
 * `/v1/models`: the organization's model prices (admins and owners write them), and the built-in table. A
 * price is in force from `effectiveFrom` (default: when it is created); runs that started before keep theirs.
 */
export class ModelsResource extends Collection<ModelPrice, CreateModelPriceInput, UpdateModelPriceInput, ModelPriceFilters> {
  protected readonly path = '/models';
  /** The built-in price table (dated, with its source), by provider then model. */
  builtin(filters: BuiltinModelPriceFilters = {}, options: ListOptions = {}): Paginated<BuiltinModelPrice> {
    return this.paginate<BuiltinModelPrice>('/models/builtin', filters, options);
  }
}
