import { Type, type Static } from '@sinclair/typebox';
import { IdParam, NullableTimestamp, Timestamp } from '../../schemas/common.js';
import { pageSchema } from '../../lib/pagination.js';

/** A token's times, in every record of a token (one's own, an organization's, a new one). */
export const tokenTimes = { createdAt: Timestamp, expiresAt: Timestamp, lastUsedAt: NullableTimestamp, revokedAt: NullableTimestamp };

export const TokenRecordSchema = Type.Object(
  { id: Type.String(), name: Type.String(), ...tokenTimes },
  { $id: 'TokenRecord', title: 'TokenRecord', additionalProperties: false },
);
export type TokenRecord = Static<typeof TokenRecordSchema>;

export const NewTokenSchema = Type.Object(
  {
    ...TokenRecordSchema.properties,
    token: Type.String({ description: 'The token itself. Shown exactly once: store it in a secret store.' }),
  },
  { title: 'NewToken', additionalProperties: false },
);

export const TokenPage = pageSchema(Type.Ref('TokenRecord'), 'TokenPage');
export const TokenParams = Type.Object({ token_id: IdParam('tok', 'Token id') }, { additionalProperties: false });
export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    expiresInDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Lifetime in days, 1..SIGHTLINE_PAT_MAX_DAYS (default SIGHTLINE_PAT_DEFAULT_DAYS). Tokens that never expire are not offered.',
      }),
    ),
  },
  { additionalProperties: false },
);
