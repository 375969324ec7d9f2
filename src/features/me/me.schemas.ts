import { Type } from '@sinclair/typebox';
import { OrganizationSchema, RoleSchema, Timestamp, UserSchema } from '../../schemas/common.js';

/** GET /v1/me: who the credential belongs to, and the credential itself. */
export const MeSchema = Type.Object(
  {
    user: UserSchema,
    organization: OrganizationSchema,
    role: RoleSchema,
    token: Type.Object(
      {
        kind: Type.Union([Type.Literal('personal_access_token'), Type.Literal('session')]),
        id: Type.String(),
        expiresAt: Timestamp,
      },
      { additionalProperties: false },
    ),
  },
  { title: 'Me', additionalProperties: false },
);
