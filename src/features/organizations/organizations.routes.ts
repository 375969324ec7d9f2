import { Type } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import { problemResponses, problems } from '../../lib/problems.js';
import { organizationList, pageRoute } from '../page-route.js';
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

  app.get('/organization', {
    config: { scope: 'organization:read' },
    schema: {
      operationId: 'getOrganization',
      tags,
      summary: "The caller's organization",
      description: 'Its name, plan and the custom CORS origins it allows.',
      response: { 200: OrganizationDetailSchema },
    },
    handler: async (request) => {
      return detail(request.principal.organizationId);
    },
  });

  app.patch('/organization', {
    config: { scope: 'organization:admin' },
    schema: {
      operationId: 'updateOrganization',
      tags,
      summary: 'Rename the organization or set its allowed origins',
      description: 'Custom CORS origins, at most as many as the plan allows (free 1, team 10, enterprise 100).',
      body: UpdateOrganizationBody,
      response: { 200: OrganizationDetailSchema, ...problemResponses(409) },
    },
    handler: async (request) => {
      const { organizationId } = request.principal;
      const org = await getOrganization(db, organizationId);
      if (!org) throw problems.notFound('Organization not found.');
      await updateOrganization(db, org, request.body, clock.now());
      return detail(organizationId);
    },
  });

  pageRoute(
    app,
    cursors,
    '/organization/members',
    { scope: 'organization:read', operationId: 'listMembers', tags, summary: 'List members', description: 'Most recently joined first.', page: MemberPage },
    organizationList('members', (organizationId, after, take) => listMembers(db, organizationId, after, take)),
    toMember,
  );

  app.patch('/organization/members/:user_id', {
    config: { scope: 'members:admin' },
    schema: {
      operationId: 'updateMember',
      tags,
      summary: "Change a member's role",
      description:
        'Admins manage roles below owner; only an owner grants or takes `owner`; demoting the last owner is a 409. Applies to the member’s existing tokens on their next request.',
      params: MemberParams,
      body: UpdateMemberBody,
      response: { 200: MemberSchema, ...problemResponses(409) },
    },
    handler: async (request) => {
      return toMember(await changeRole(db, dialect, request.principal, request.params.user_id, request.body.role));
    },
  });

  app.delete('/organization/members/:user_id', {
    config: { scope: 'members:admin' },
    schema: {
      operationId: 'removeMember',
      tags,
      summary: 'Remove a member',
      description: 'Their tokens stop working at once.',
      params: MemberParams,
      response: { 204: Type.Null({ description: 'Removed' }), ...problemResponses(409) },
    },
    handler: async (request, reply) => {
      await removeMember(db, dialect, request.principal, request.params.user_id, clock.now());
      return reply.code(204).send(null);
    },
  });

  pageRoute(
    app,
    cursors,
    '/organization/invitations',
    { scope: 'members:admin', operationId: 'listInvitations', tags, summary: 'List pending invitations', description: 'Newest first.', page: InvitationPage },
    organizationList('invitations', (organizationId, after, take) => listInvitations(db, organizationId, after, take)),
    toInvitation,
  );

  app.post('/organization/invitations', {
    config: { scope: 'members:admin' },
    schema: {
      operationId: 'createInvitation',
      tags,
      summary: 'Invite someone by email',
      description: 'When the invited email signs in (or is bootstrapped with the CLI) they join with the invited role.',
      body: CreateInvitationBody,
      response: { 201: InvitationSchema, ...problemResponses(409) },
    },
    handler: async (request, reply) => {
      return reply.code(201).send(toInvitation(await createInvitation(db, request.principal, request.body, clock.now())));
    },
  });

  app.delete('/organization/invitations/:invitation_id', {
    config: { scope: 'members:admin' },
    schema: {
      operationId: 'deleteInvitation',
      tags,
      summary: 'Withdraw an invitation',
      description: 'The email no longer joins the organization when it signs in.',
      params: InvitationParams,
      response: { 204: Type.Null({ description: 'Withdrawn' }) },
    },
    handler: async (request, reply) => {
      await deleteInvitation(db, request.principal.organizationId, request.params.invitation_id);
      return reply.code(204).send(null);
    },
  });

  pageRoute(
    app,
    cursors,
    '/organization/tokens',
    {
      scope: 'tokens:admin',
      operationId: 'listOrganizationTokens',
      tags,
      summary: "List every member's personal access tokens",
      description: 'Admins only; never the token strings. Revoke with DELETE /v1/tokens/{token_id}.',
      page: OrganizationTokenPage,
    },
    organizationList('organization-tokens', (organizationId, after, take) => listTokens(db, { organizationId }, after, take)),
    (row) => ({ ...toTokenRecord(row), userId: row.user_id }),
  );
}
