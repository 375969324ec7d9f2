import type { App, Deps } from '../../deps.js';
import { actorOf } from '../../db/audit.js';
import { problems } from '../../lib/problems.js';
import { organizationList } from '../page-route.js';
import { routeKit } from '../route-kit.js';
import { listTokens, toTokenRecord } from '../tokens/index.js';
import { createInvitation, deleteInvitation, listInvitations, toInvitation } from './invitations.repo.js';
import { changeRole, listMembers, removeMember, toMember } from './members.repo.js';
import { getOrganization, toOrganization, updateOrganization } from './organizations.repo.js';
import {
  CreateInvitationBody,
  InvitationPage,
  InvitationParams,
  InvitationSchema,
  MemberPage,
  MemberParams,
  MemberSchema,
  OrganizationDetailSchema,
  OrganizationTokenPage,
  UpdateMemberBody,
  UpdateOrganizationBody,
} from './organizations.schemas.js';
import { listOrigins } from './origins.repo.js';

const tags = ['Organization'];

export function organizationRoutes(app: App, { db, dialect, clock, cursors }: Deps): void {
  const detail = async (organizationId: string) => {
    const org = await getOrganization(db, organizationId);
    if (!org) throw problems.notFound('Organization not found.');
    return { ...toOrganization(org), allowedOrigins: await listOrigins(db, organizationId) };
  };

  const route = routeKit(app, { tags, cursors });

  route.get(
    '/organization',
    {
      scope: 'organization:read',
      operationId: 'getOrganization',
      summary: "The caller's organization",
      description: 'Its name, plan and the custom CORS origins it allows.',
      answer: OrganizationDetailSchema,
    },
    (request) => detail(request.principal.organizationId),
  );

  route.patch(
    '/organization',
    {
      scope: 'organization:admin',
      operationId: 'updateOrganization',
      summary: 'Rename the organization or set its allowed origins',
      description: 'Custom CORS origins, at most as many as the plan allows (free 1, team 10, enterprise 100).',
      body: UpdateOrganizationBody,
      answer: OrganizationDetailSchema,
      problems: [409],
    },
    async (request) => {
      const { organizationId } = request.principal;
      const org = await getOrganization(db, organizationId);
      if (!org) throw problems.notFound('Organization not found.');
      await updateOrganization(db, org, request.body, clock.now(), actorOf(request.principal));
      return detail(organizationId);
    },
  );

  route.page(
    '/organization/members',
    { scope: 'organization:read', operationId: 'listMembers', summary: 'List members', description: 'Most recently joined first.', page: MemberPage },
    organizationList('members', (organizationId, after, take) => listMembers(db, organizationId, after, take)),
    toMember,
  );

  route.patch(
    '/organization/members/:user_id',
    {
      scope: 'members:admin',
      operationId: 'updateMember',
      summary: "Change a member's role",
      description:
        'Admins manage roles below owner; only an owner grants or takes `owner`; demoting the last owner is a 409. Applies to the member’s existing tokens on their next request.',
      params: MemberParams,
      body: UpdateMemberBody,
      answer: MemberSchema,
      problems: [409],
    },
    async (request) => toMember(await changeRole(db, dialect, request.principal, request.params.user_id, request.body.role, clock.now())),
  );

  route.delete(
    '/organization/members/:user_id',
    {
      scope: 'members:admin',
      operationId: 'removeMember',
      summary: 'Remove a member',
      description: 'Their tokens stop working at once.',
      params: MemberParams,
      outcome: 'Removed',
      problems: [409],
    },
    (request) => removeMember(db, dialect, request.principal, request.params.user_id, clock.now()),
  );

  route.page(
    '/organization/invitations',
    { scope: 'members:admin', operationId: 'listInvitations', summary: 'List pending invitations', description: 'Newest first.', page: InvitationPage },
    organizationList('invitations', (organizationId, after, take) => listInvitations(db, organizationId, after, take)),
    toInvitation,
  );

  route.create(
    '/organization/invitations',
    {
      scope: 'members:admin',
      operationId: 'createInvitation',
      summary: 'Invite someone by email',
      description: 'When the invited email signs in (or is bootstrapped with the CLI) they join with the invited role.',
      body: CreateInvitationBody,
      answer: InvitationSchema,
      problems: [409],
    },
    async (request) => toInvitation(await createInvitation(db, request.principal, request.body, clock.now())),
  );

  route.delete(
    '/organization/invitations/:invitation_id',
    {
      scope: 'members:admin',
      operationId: 'deleteInvitation',
      summary: 'Withdraw an invitation',
      description: 'The email no longer joins the organization when it signs in.',
      params: InvitationParams,
      outcome: 'Withdrawn',
    },
    (request) => deleteInvitation(db, request.principal, request.params.invitation_id, clock.now()),
  );

  route.page(
    '/organization/tokens',
    {
      scope: 'tokens:admin',
      operationId: 'listOrganizationTokens',
      summary: "List every member's personal access tokens",
      description: 'Admins only; never the token strings. Revoke with DELETE /v1/tokens/{token_id}.',
      page: OrganizationTokenPage,
    },
    organizationList('organization-tokens', (organizationId, after, take) => listTokens(db, { organizationId }, after, take)),
    (row) => ({ ...toTokenRecord(row), userId: row.user_id }),
  );
}
