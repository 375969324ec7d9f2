import { useState } from 'react';
import { AUDIT_ACTIONS } from '../../../../src/db/audit-actions.js';
import { organization } from '../../api.js';
import { PagedTable } from '../../components/paged.js';
import { Empty, Field, When } from '../../components/ui.js';
import { useList } from '../../hooks.js';
import type { AuditEvent, Member } from '../../types.js';

/** An event's details in a line: what changed, as the server recorded it (never a secret). */
export function auditSummary(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

/** The organization's audit log (admins; GET /v1/organization/audit-log): newest first, filtered by action and member. */
export function AuditLogPanel({ members }: { members: Member[] }) {
  const [action, setAction] = useState('');
  const [actorId, setActorId] = useState('');
  const list = useList(organization.auditLog, { ...(action ? { action } : {}), ...(actorId ? { actorId } : {}) });
  const emails = new Map(members.map((m) => [m.user.id, m.user.email]));
  const who = (userId: string | null) => (userId === null ? 'Sightline' : (emails.get(userId) ?? userId));
  return (
    <>
      <p className="muted" style={{ marginTop: 0 }}>
        Sign-ins, tokens, members, invitations, allowed origins, model connections and project deletions: who did what, kept for the server&apos;s retention
        (SIGHTLINE_AUDIT_RETENTION_DAYS). Nothing here holds a secret.
      </p>
      <div className="inline-form" role="group" aria-label="Filter the audit log">
        <Field label="Action">
          <select value={action} onChange={(e) => setAction(e.target.value)}>
            <option value="">Every action</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Member">
          <select value={actorId} onChange={(e) => setActorId(e.target.value)}>
            <option value="">Anyone</option>
            {members.map((m) => (
              <option key={m.user.id} value={m.user.id}>
                {m.user.email}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <PagedTable
        list={list}
        label="Audit log"
        loadingLabel="Loading the audit log…"
        empty={<Empty title="No events">Nothing recorded{action || actorId ? ' matches these filters' : ' yet'}.</Empty>}
        columns={['When', 'Who', 'Action', 'On', 'Details']}
        row={(event: AuditEvent) => (
          <tr key={event.id}>
            <td>
              <When iso={event.createdAt} />
            </td>
            <td>
              {who(event.actor.userId)}
              {event.actor.credential && <span className="muted"> ({event.actor.credential.kind.replaceAll('_', ' ')})</span>}
            </td>
            <td>
              <code>{event.action}</code>
            </td>
            <td>
              {event.target.type} <code>{event.target.id}</code>
            </td>
            <td className="muted">{auditSummary(event.details)}</td>
          </tr>
        )}
      />
    </>
  );
}
