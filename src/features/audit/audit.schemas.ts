import { Type } from '@sinclair/typebox';
import { listQuery, pageSchema } from '../../lib/pagination.js';
import { ACTOR_CREDENTIAL_KINDS, AUDIT_ACTIONS } from '../../db/audit-actions.js';
import { NamedRecord, StringEnum, Timestamp } from '../../schemas/common.js';

export const AuditEventSchema = NamedRecord('AuditEvent', {
  id: Type.String(),
  createdAt: Timestamp,
  action: StringEnum(AUDIT_ACTIONS),
  actor: Type.Object(
    {
      userId: Type.Union([Type.String(), Type.Null()], { description: 'Who acted; null for the service itself (a reused token’s family revoked).' }),
      credential: Type.Union(
        [Type.Object({ kind: StringEnum(ACTOR_CREDENTIAL_KINDS), id: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: false }), Type.Null()],
        { description: 'The credential they acted with: a token or a session (its id), or the `sightline` command (`cli`).' },
      ),
    },
    { additionalProperties: false },
  ),
  target: Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: false, description: 'What the action was on.' }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'What changed (names, roles, origins, which fields): never a secret.' }),
});

export const AuditPage = pageSchema(Type.Ref('AuditEvent'), 'AuditEventPage');

export const ListAuditQuery = listQuery({
  action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only this action.' })),
  actorId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only what this user did.' })),
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
});
