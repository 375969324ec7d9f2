import { Type, type Static } from '@sinclair/typebox';
import { IdParam, NamedRecord, NOT_BLANK_PATTERN, NullableTimestamp, Timestamp } from '../../schemas/common.js';
import { pageSchema } from '../../lib/pagination.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';

/** A token's times, in every record of a token (one's own, an organization's, a new one). */
export const tokenTimes = { createdAt: Timestamp, expiresAt: Timestamp, lastUsedAt: NullableTimestamp, revokedAt: NullableTimestamp };

export const TokenRecordSchema = NamedRecord('TokenRecord', { id: Type.String(), name: Type.String(), ...tokenTimes });
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
/** The body of POST /v1/tokens on a server whose token lifetimes are `patMaxDays` at most (a setting). */
export function createTokenBody({ patMaxDays, patDefaultDays }: { patMaxDays: number; patDefaultDays: number }) {
  return Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK_PATTERN }),
      expiresInDays: Type.Optional(
        // The route refuses more than the setting allows, with a problem that names the range.
        enforcedElsewhere(
          Type.Integer({
            minimum: 1,
            format: 'int32',
            description: `Lifetime in days, 1..${patMaxDays} (SIGHTLINE_PAT_MAX_DAYS); default ${patDefaultDays} (SIGHTLINE_PAT_DEFAULT_DAYS). Tokens that never expire are not offered.`,
          }),
          { maximum: patMaxDays },
        ),
      ),
    },
    { additionalProperties: false },
  );
}
