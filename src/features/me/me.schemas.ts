import { Type } from '@sinclair/typebox';
import { OrganizationSchema, RoleSchema, Timestamp, UserSchema } from '../../schemas/common.js';
import { SCOPES } from '../../auth/roles.js';
import { ScopeSchema, tokenLimitFields } from '../tokens/tokens.schemas.js';

/** GET /v1/me: who the credential belongs to, and the credential itself. */
export const MeSchema = Type.Object(
  {
    user: UserSchema,
    organization: OrganizationSchema,
    role: RoleSchema,
    scopes: Type.Array(ScopeSchema, {
      maxItems: SCOPES.length,
      description: "What this credential may do now: the role's scopes, those of the token's scopes only when it is narrowed.",
    }),
    token: Type.Object(
      {
        kind: Type.Union([Type.Literal('personal_access_token'), Type.Literal('session')]),
        id: Type.String(),
        expiresAt: Timestamp,
        ...tokenLimitFields,
      },
      { additionalProperties: false },
    ),
  },
  { title: 'Me', additionalProperties: false },
);
