import { useState } from 'react';
import { mayAssignRole, ROLES, type Role } from '../../../../src/auth/roles.js';
import { organization } from '../../api.js';
import { narrow, PagedTable } from '../../components/paged.js';
import { Badge, Button, Empty, ErrorBox, Options, When } from '../../components/ui.js';
import type { FieldLabels } from '../../components/problems.js';
import type { List } from '../../hooks.js';
import { useSession } from '../../session.js';
import type { Member } from '../../types.js';
import { ConfirmDialog, type ConfirmRequest } from './confirm.js';

export type MemberList = List<Member>;

export const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, including owners',
  admin: 'also deletes, manages members, invitations, tokens and origins',
  member: 'also creates and changes projects, runs, prompts and monitors',
  viewer: 'reads everything',
};

/** The server's names for a member change's fields, as the table shows them (components/problems.tsx). */
const FIELDS: FieldLabels = { role: 'Role', user_id: 'Member' };

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

  /**
   * The organization keeps at least one owner (the server refuses otherwise, 409): the only owner among
   * the members listed is neither offered for removal nor a role below owner. (With more members still
   * to load, another owner may be among them: "Load more" brings them and the actions back.)
   */
  const owners = list.items.filter((m) => m.role === 'owner').length;
  const lastOwner = (member: Member) => member.role === 'owner' && owners <= 1;
  /** Whether the signed-in user may change this member: admins below owner, owners anyone but the last owner. */
  const manageable = (member: Member) => can('members:admin') && mayAssignRole(me.role, { from: member.role }) && !lastOwner(member);

  const changeRole = async (member: Member, role: Role) => {
    setError(null);
    setSaving(member.user.id);
    try {
      const updated = await organization.updateMember(member.user.id, { role });
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
        await organization.removeMember(member.user.id);
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
      {error !== null && <ErrorBox error={error} fields={FIELDS} />}
      <PagedTable
        list={list}
        loadingLabel="Loading members…"
        empty={<Empty title="No members" />}
        columns={['Email', narrow('Name'), 'Role', narrow('Joined'), ...(can('members:admin') ? [{ label: <span className="muted">Actions</span> }] : [])]}
        row={(member) => (
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
                  <Options values={grantable.includes(member.role) ? grantable : [member.role, ...grantable]} />
                </select>
              ) : (
                <>
                  <Badge tone={member.role === 'owner' ? 'info' : 'neutral'}>{member.role}</Badge>
                  {lastOwner(member) && can('members:admin') && mayAssignRole(me.role, { from: 'owner' }) && (
                    <span className="field-hint" style={{ display: 'block' }}>
                      The last owner: make another member owner before changing or removing this one.
                    </span>
                  )}
                </>
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
        )}
      />
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </>
  );
}
