import { Type, type Static } from '@sinclair/typebox';
import { IdParam, NamedRecord, NOT_BLANK_PATTERN, NullableTimestamp, Timestamp } from '../../schemas/common.js';
import { pageSchema } from '../../lib/pagination.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { SCOPES } from '../../auth/roles.js';
import { StringEnum } from '../../schemas/common.js';

/** Most projects one token may be narrowed to. */
export const MAX_TOKEN_PROJECTS = 100;

export const ScopeSchema = StringEnum(SCOPES, { description: 'A scope of the permission table (docs/tokens-and-access.md, Roles).' });

/** What a token is narrowed to, in every record of a token. */
export const tokenLimitFields = {
  scopes: Type.Union([Type.Array(ScopeSchema, { maxItems: SCOPES.length }), Type.Null()], {
    description: "The scopes the token may use, of those its user's role grants at each request; null: every scope of the role.",
  }),
  projectIds: Type.Union([Type.Array(Type.String(), { maxItems: MAX_TOKEN_PROJECTS }), Type.Null()], {
    description: 'The only projects the token reaches; null: every project.',
  }),
};

/** A token's times, in every record of a token (one's own, an organization's, a new one); and what it is narrowed to. */
export const tokenTimes = { createdAt: Timestamp, expiresAt: Timestamp, lastUsedAt: NullableTimestamp, revokedAt: NullableTimestamp, ...tokenLimitFields };

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
      scopes: Type.Optional(
        Type.Array(ScopeSchema, {
          minItems: 1,
          maxItems: SCOPES.length,
          uniqueItems: true,
          description:
            'Narrows the token to these scopes (for an exporter, `["runs:write"]`): on each request it may do what both its scopes and your role at that moment allow. ' +
            'None beyond what your credential allows now. Omitted: every scope of your role.',
        }),
      ),
      projectIds: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
          minItems: 1,
          maxItems: MAX_TOKEN_PROJECTS,
          uniqueItems: true,
          description:
            'Narrows the token to these projects: other projects are a 404 to it, organization-wide routes a 403, and it creates no project. Omitted: every project.',
        }),
      ),
    },
    { additionalProperties: false },
  );
}
