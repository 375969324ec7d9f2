import { Type } from '@sinclair/typebox';
import { pageSchema } from '../../lib/pagination.js';
import { enforcedElsewhere } from '../../lib/enforced-elsewhere.js';
import { PORT_PATTERN } from '../../lib/webhook-target.js';
import { IdParam, RoleSchema, Timestamp, TRIMMED_LINE_PATTERN, UserSchema } from '../../schemas/common.js';
import { tokenTimes } from '../tokens/tokens.schemas.js';

export const PLAN_ORIGIN_QUOTA: Record<string, number> = { free: 1, team: 10, enterprise: 100 };

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
// A last label of digits (or 0x and hex digits) makes the URL parser read the host as an IPv4 address.
// A punycode label (`xn--`) is left out: only the URL parser knows whether it is valid.
const DNS_NAME = `(?:(?!xn--)${LABEL}\\.)*(?!(?:[0-9]+|0x[0-9a-f]*)(?::|$))(?!xn--)${LABEL}`;
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
/**
 * Origins `originFault` accepts: exactly what the URL parser writes for them (lower case, no default port,
 * no path, slash or credentials), https, or http for localhost. Every origin of this pattern is accepted;
 * the route also accepts what only the URL parser can judge, which the pattern leaves out and the field's
 * description names: IPv6 addresses in their canonical form, and valid punycode (`xn--`) labels.
 */
export const ORIGIN_PATTERN = `^(?:https://(?:${DNS_NAME}|${IPV4})(?::(?!443$)${PORT_PATTERN})?|http://localhost(?::(?!80$)${PORT_PATTERN})?)$`;

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
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: TRIMMED_LINE_PATTERN })),
    allowedOrigins: Type.Optional(
      // Each origin is checked by the route, which says what is wrong with it.
      Type.Array(enforcedElsewhere(Type.String({ minLength: 1, maxLength: 300 }), { pattern: ORIGIN_PATTERN }), {
        maxItems: 1000,
        uniqueItems: true,
        description:
          'The full list. Each an exact origin `https://host[:port]` (or `http://localhost:<port>`), as a browser writes it: lower case, no default port, no slash. Beside the pattern, an IPv6 address in its canonical form (`https://[::1]`) and valid punycode labels (`xn--`) are taken too. At most as many as the plan allows.',
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
