import { useState } from 'react';
import { mayAssignRole, ROLES, type Role } from '../../../../src/auth/roles.js';
import { api } from '../../api.js';
import { Badge, Button, Empty, ErrorBox, LoadMore, Loading } from '../../components/ui.js';
import type { useList } from '../../hooks.js';
import { useSession } from '../../session.js';
import { ConfirmDialog, When, type ConfirmRequest } from './confirm.js';
import type { Member } from './types.js';

export type MemberList = ReturnType<typeof useList<Member>>;

export const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, including owners',
  admin: 'also deletes, manages members, invitations, tokens and origins',
  member: 'also creates and changes projects, runs, prompts and monitors',
  viewer: 'reads everything',
};

/** The roles the signed-in user may grant: only an owner grants (or takes) `owner`. */
export function useGrantableRoles(): Role[] {
  const { me } = useSession();
  return ROLES.filter((role) => mayAssignRole(me.role, { to: role }));
}

/** Members and their roles (GET /v1/organization/members); admins change roles and remove members. */
export function MembersPanel({ list }: { list: MemberList }) {
  const { can, me } = useSession();
  const grantable = useGrantableRoles();
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);

  /** Whether the signed-in user may change this member: admins below owner, owners anyone. */
  const manageable = (member: Member) => can('members:admin') && mayAssignRole(me.role, { from: member.role });

  const changeRole = async (member: Member, role: Role) => {
    setError(null);
    setSaving(member.user.id);
    try {
      const updated = await api.patch<Member>(`/organization/members/${encodeURIComponent(member.user.id)}`, { role });
      list.setItems((items) => items.map((m) => (m.user.id === updated.user.id ? updated : m)));
    } catch (e) {
      setError(e);
    } finally {
      setSaving(null);
    }
  };

  const remove = (member: Member) =>
    setConfirm({
      title: 'Remove member',
      message: (
        <p>
          Remove <strong>{member.user.email}</strong> from {me.organization.name}? Their tokens stop working at once.
          {member.user.id === me.user.id && <strong> This is you: you will lose access.</strong>}
        </p>
      ),
      confirmLabel: 'Remove member',
      run: async () => {
        setError(null);
        await api.del(`/organization/members/${encodeURIComponent(member.user.id)}`);
        list.setItems((items) => items.filter((m) => m.user.id !== member.user.id));
      },
    });

  return (
    <>
      {!can('members:admin') && (
        <p className="muted" style={{ marginTop: 0 }}>
          Only admins and owners change roles or remove members.
        </p>
      )}
      {error !== null && <ErrorBox error={error} />}
      {list.error !== null && <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.error === null && !list.loaded && list.loading && <Loading label="Loading members…" />}
      {list.error === null && list.loaded && list.items.length === 0 && <Empty title="No members" />}
      {list.items.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col" className="hide-narrow">
                  Name
                </th>
                <th scope="col">Role</th>
                <th scope="col" className="hide-narrow">
                  Joined
                </th>
                {can('members:admin') && (
                  <th scope="col">
                    <span className="muted">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {list.items.map((member) => (
                <tr key={member.user.id}>
                  <td>
                    {member.user.email}
                    {member.user.id === me.user.id && <span className="muted"> (you)</span>}
                  </td>
                  <td className="hide-narrow">{member.user.name || <span className="muted">—</span>}</td>
                  <td>
                    {manageable(member) ? (
                      <select
                        aria-label={`Role of ${member.user.email}`}
                        value={member.role}
                        disabled={saving === member.user.id}
                        onChange={(e) => void changeRole(member, e.target.value as Role)}
                        title={ROLE_HELP[member.role]}
                      >
                        {(grantable.includes(member.role) ? grantable : [member.role, ...grantable]).map((role) => (
                          <option key={role} value={role}>
                            {role}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <Badge tone={member.role === 'owner' ? 'info' : 'neutral'}>{member.role}</Badge>
                    )}
                  </td>
                  <td className="hide-narrow">
                    <When iso={member.joinedAt} />
                  </td>
                  {can('members:admin') && (
                    <td>
                      {manageable(member) && (
                        <Button variant="danger" onClick={() => remove(member)} aria-label={`Remove ${member.user.email}`}>
                          Remove
                        </Button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onLoadMore={list.loadMore} />
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </>
  );
}
