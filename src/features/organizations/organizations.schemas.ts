import { Type } from '@sinclair/typebox';
import { pageSchema } from '../../lib/pagination.js';
import { IdParam, RoleSchema, Timestamp, UserSchema } from '../../schemas/common.js';
import { tokenTimes } from '../tokens/tokens.schemas.js';

export const PLAN_ORIGIN_QUOTA: Record<string, number> = { free: 1, team: 10, enterprise: 100 };

export const OrganizationDetailSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: Type.String(),
    allowedOrigins: Type.Array(Type.String(), { description: 'Custom CORS origins allowed for requests authenticated as this organization' }),
    createdAt: Timestamp,
  },
  { title: 'OrganizationDetail', additionalProperties: false },
);

export const UpdateOrganizationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$' })),
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
        maxItems: 1000,
        uniqueItems: true,
        description: 'The full list. Each an exact origin `https://host[:port]` (or `http://localhost:<port>`); at most as many as the plan allows.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const MemberSchema = Type.Object({ user: UserSchema, role: RoleSchema, joinedAt: Timestamp }, { title: 'Member', additionalProperties: false });
export const MemberPage = pageSchema(MemberSchema, 'MemberPage');
export const MemberParams = Type.Object({ user_id: IdParam('usr', 'User id') }, { additionalProperties: false });
export const UpdateMemberBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });

export const InvitationSchema = Type.Object(
  { id: Type.String(), email: Type.String(), role: RoleSchema, invitedBy: Type.String(), createdAt: Timestamp },
  { title: 'Invitation', additionalProperties: false },
);
export const InvitationPage = pageSchema(InvitationSchema, 'InvitationPage');
export const InvitationParams = Type.Object({ invitation_id: IdParam('inv', 'Invitation id') }, { additionalProperties: false });
export const CreateInvitationBody = Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }), role: RoleSchema }, { additionalProperties: false });

export const OrganizationTokenSchema = Type.Object(
  { id: Type.String(), name: Type.String(), userId: Type.String(), ...tokenTimes },
  { title: 'OrganizationToken', additionalProperties: false },
);
export const OrganizationTokenPage = pageSchema(OrganizationTokenSchema, 'OrganizationTokenPage');
