import { useState, type FormEvent } from 'react';
import type { Role } from '../../../../src/auth/roles.js';
import { api } from '../../api.js';
import { Button, Empty, ErrorBox, Field, LoadMore, Loading } from '../../components/ui.js';
import { useList } from '../../hooks.js';
import { When } from './confirm.js';
import { ROLE_HELP, useGrantableRoles } from './members.js';
import type { Invitation } from './types.js';

/** Pending invitations (admins): invite an email with a role, withdraw. The invitee joins at their first sign-in. */
export function InvitationsPanel() {
  const list = useList<Invitation>('/organization/invitations');
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
      const created = await api.post<Invitation>('/organization/invitations', { email: email.trim(), role });
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
      await api.del(`/organization/invitations/${encodeURIComponent(invitation.id)}`);
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
            {grantable.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
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
      {error !== null && <ErrorBox error={error} />}
      {list.error !== null && <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.error === null && !list.loaded && list.loading && <Loading label="Loading invitations…" />}
      {list.error === null && list.loaded && list.items.length === 0 && <Empty title="No pending invitations">Invite a colleague by email above.</Empty>}
      {list.items.length > 0 && (
        <div className="table-wrap" style={{ marginTop: 12 }}>
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Invited</th>
                <th scope="col">
                  <span className="muted">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((invitation) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onLoadMore={list.loadMore} />
    </>
  );
}
