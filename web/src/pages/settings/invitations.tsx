import { useState, type FormEvent } from 'react';
import type { Role } from '../../../../src/auth/roles.js';
import { organization } from '../../api.js';
import { PagedTable } from '../../components/paged.js';
import { Button, Empty, ErrorBox, Field, Options, When } from '../../components/ui.js';
import { useList } from '../../hooks.js';
import type { Invitation } from '../../types.js';
import { ROLE_HELP, useGrantableRoles } from './members.js';

/** Pending invitations (admins): invite an email with a role, withdraw. The invitee joins at their first sign-in. */
export function InvitationsPanel() {
  const list = useList(organization.invitations);
  const grantable = useGrantableRoles();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [withdrawing, setWithdrawing] = useState<string | null>(null);

  const invite = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSent(null);
    try {
      const created = await organization.invite({ email: email.trim(), role });
      setSent(`${created.email} is invited as ${created.role}: they join when they first sign in.`);
      setEmail('');
      list.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const withdraw = async (invitation: Invitation) => {
    setError(null);
    setSent(null);
    setWithdrawing(invitation.id);
    try {
      await organization.withdrawInvitation(invitation.id);
      list.setItems((items) => items.filter((i) => i.id !== invitation.id));
    } catch (e) {
      setError(e);
    } finally {
      setWithdrawing(null);
    }
  };

  return (
    <>
      <form className="inline-form" onSubmit={(e) => void invite(e)} aria-label="Invite someone">
        <Field label="Email">
          <input
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
            maxLength={320}
            placeholder="colleague@example.com"
            autoComplete="off"
          />
        </Field>
        <Field label="Role">
          <select value={role} onChange={(e) => setRole(e.target.value as Role)} title={ROLE_HELP[role]}>
            <Options values={grantable} />
          </select>
        </Field>
        <Button type="submit" variant="primary" disabled={busy || email.trim() === ''}>
          {busy ? 'Inviting…' : 'Invite'}
        </Button>
      </form>
      <p className="field-hint" style={{ marginTop: 6 }}>
        {role}: {ROLE_HELP[role]}.
      </p>
      {sent && (
        <p role="status" className="muted">
          {sent}
        </p>
      )}
      {error !== null && <ErrorBox error={error} fields={{ email: 'Email', role: 'Role' }} />}
      <PagedTable
        list={list}
        loadingLabel="Loading invitations…"
        empty={<Empty title="No pending invitations">Invite a colleague by email above.</Empty>}
        style={{ marginTop: 12 }}
        columns={['Email', 'Role', 'Invited', { label: <span className="muted">Actions</span> }]}
        row={(invitation) => (
          <tr key={invitation.id}>
            <td>{invitation.email}</td>
            <td>{invitation.role}</td>
            <td>
              <When iso={invitation.createdAt} />
            </td>
            <td>
              <Button
                variant="danger"
                disabled={withdrawing === invitation.id}
                onClick={() => void withdraw(invitation)}
                aria-label={`Withdraw the invitation of ${invitation.email}`}
              >
                Withdraw
              </Button>
            </td>
          </tr>
        )}
      />
    </>
  );
}
