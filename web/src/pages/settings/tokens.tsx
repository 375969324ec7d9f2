import { useState, type FormEvent } from 'react';
import { organization, projects, tokens } from '../../api.js';
import { narrow, PagedTable, type Column } from '../../components/paged.js';
import type { FieldLabels } from '../../components/problems.js';
import { Badge, Button, Empty, ErrorBox, Field, When } from '../../components/ui.js';
import { useList } from '../../hooks.js';
import { useSession } from '../../session.js';
import type { Member, TokenRecord } from '../../types.js';
import { ConfirmDialog, type ConfirmRequest } from './confirm.js';
import { ACCESS_PRESETS, tokenAccess, type AccessPreset } from './token-access.js';
import { SecretReveal, type Secret } from './token-secret.js';

/** The token form's fields by their names in the API (components/problems.tsx). */
const FIELDS: FieldLabels = { name: 'Token name', expiresInDays: 'Lifetime (days)', scopes: 'Access', projectIds: 'Projects' };

type TokenStatus = 'active' | 'revoked' | 'expired';

/** Revoked wins over expired: a revoked token stays revoked whatever its expiry. */
export function tokenStatus(token: Pick<TokenRecord, 'revokedAt' | 'expiresAt'>, now = Date.now()): TokenStatus {
  if (token.revokedAt) return 'revoked';
  if (Date.parse(token.expiresAt) <= now) return 'expired';
  return 'active';
}

const STATUS_TONE: Record<TokenStatus, 'ok' | 'bad' | 'neutral'> = { active: 'ok', revoked: 'bad', expired: 'neutral' };

/** The headings of a token table (`owner`: the organization's, with an Owner column after the name). */
const tokenColumns = (owner: boolean): Column[] => [
  'Name',
  ...(owner ? ['Owner'] : []),
  'Access',
  narrow('Created'),
  'Expires',
  'Last used',
  'Status',
  { label: <span className="muted">Actions</span> },
];

/** A token's access, dates and status, the cells both token tables have between its name (and owner) and its actions. */
function TokenCells({ token, projectNames }: { token: TokenRecord; projectNames: Map<string, string> }) {
  const status = tokenStatus(token);
  return (
    <>
      <td>{tokenAccess(token, projectNames)}</td>
      <td className="hide-narrow">
        <When iso={token.createdAt} />
      </td>
      <td>
        <When iso={token.expiresAt} />
      </td>
      <td>
        <When iso={token.lastUsedAt} />
      </td>
      <td>
        <Badge tone={STATUS_TONE[status]}>{status}</Badge>
      </td>
    </>
  );
}

/** Mint, list, rotate and revoke the caller's own personal access tokens (GET/POST /v1/tokens). */
export function TokensPanel({ members }: { members: Member[] }) {
  const { can, me } = useSession();
  const list = useList(tokens.list);
  // The organization's first projects: to narrow a token to one, and to name them in the tables.
  const projectList = useList(projects.list, {}, 100);
  const projectNames = new Map(projectList.items.map((p) => [p.id, p.name]));
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [access, setAccess] = useState<AccessPreset>('role');
  const [project, setProject] = useState('');
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<unknown>(null);
  /** Bumped when the caller's tokens change, so the organization's list (admins) is fetched again. */
  const [orgVersion, setOrgVersion] = useState(0);
  const changed = () => {
    list.reload();
    setOrgVersion((v) => v + 1);
  };
  const [secret, setSecret] = useState<Secret | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFormError(null);
    try {
      const lifetime = days.trim() === '' ? undefined : Number(days);
      const scopes = ACCESS_PRESETS[access].scopes;
      const created = await tokens.create({
        name: name.trim(),
        ...(lifetime === undefined ? {} : { expiresInDays: lifetime }),
        ...(scopes === null ? {} : { scopes: [...scopes] }),
        ...(project === '' ? {} : { projectIds: [project] }),
      });
      setSecret({ ...created, rotated: false });
      setName('');
      setDays('');
      setAccess('role');
      setProject('');
      changed();
    } catch (error) {
      setFormError(error);
    } finally {
      setBusy(false);
    }
  };

  const rotate = (token: TokenRecord) =>
    setConfirm({
      title: 'Rotate token',
      message: (
        <p>
          A new token named <strong>{token.name}</strong> with the same lifetime is created and shown once;{' '}
          <strong>the current one stops working at once</strong> (or after the server&apos;s rotation grace period, when one is set). Update every client that
          uses it.
        </p>
      ),
      confirmLabel: 'Rotate token',
      danger: false,
      run: async () => {
        setSecret({ ...(await tokens.rotate(token.id)), rotated: true });
        changed();
      },
    });

  const revoke = (token: { id: string; name: string }, after: () => void) =>
    setConfirm({
      title: 'Revoke token',
      message: (
        <p>
          Revoke <strong>{token.name}</strong>? Every request made with it fails with 401 from now on, on every server. This cannot be undone.
        </p>
      ),
      confirmLabel: 'Revoke token',
      run: async () => {
        await tokens.revoke(token.id);
        // A revoked token's string is worthless: stop showing it.
        setSecret((shown) => (shown?.id === token.id ? null : shown));
        after();
      },
    });

  return (
    <>
      <p className="muted" style={{ marginTop: 0 }}>
        Personal access tokens call the API as you, with your current role in {me.organization.name}, or less: a token may be narrowed to reading, or to sending
        runs, and to one project. Send one as <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
      <form className="inline-form" onSubmit={(e) => void create(e)} aria-label="Create an API token">
        <Field label="Token name">
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="ci-ingest" autoComplete="off" />
        </Field>
        <Field label="Lifetime (days)">
          <input
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            value={days}
            onChange={(e) => setDays(e.target.value)}
            placeholder="server default"
            title="Leave empty for the server's default lifetime; the server refuses more than its maximum."
            style={{ width: '11em' }}
          />
        </Field>
        <Field label="Access">
          <select value={access} onChange={(e) => setAccess(e.target.value as AccessPreset)}>
            {Object.entries(ACCESS_PRESETS).map(([key, preset]) => (
              <option key={key} value={key}>
                {preset.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Projects">
          <select value={project} onChange={(e) => setProject(e.target.value)}>
            <option value="">All projects</option>
            {projectList.items.map((p) => (
              <option key={p.id} value={p.id}>
                Only {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Button type="submit" variant="primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create token'}
        </Button>
      </form>
      <p className="field-hint" style={{ marginTop: 6 }}>
        Leave the lifetime empty for the server&apos;s default; it must be at least 1 day and at most the server&apos;s maximum (the server says which). Tokens
        that never expire are not offered.
      </p>
      {formError !== null && <ErrorBox error={formError} fields={FIELDS} />}
      {secret && <SecretReveal secret={secret} onDone={() => setSecret(null)} />}

      <h3 style={{ fontSize: '1rem', margin: '16px 0 8px' }}>Your tokens</h3>
      <PagedTable
        list={list}
        loadingLabel="Loading tokens…"
        empty={<Empty title="No tokens yet">Create one above to call the API from a script or a server.</Empty>}
        columns={tokenColumns(false)}
        row={(token) => (
          <tr key={token.id}>
            <td>{token.name}</td>
            <TokenCells token={token} projectNames={projectNames} />
            <td>
              {tokenStatus(token) === 'active' && (
                <div className="actions">
                  <Button onClick={() => rotate(token)} aria-label={`Rotate ${token.name}`}>
                    Rotate
                  </Button>
                  <Button variant="danger" onClick={() => revoke(token, changed)} aria-label={`Revoke ${token.name}`}>
                    Revoke
                  </Button>
                </div>
              )}
            </td>
          </tr>
        )}
      />

      {can('tokens:admin') && (
        <OrganizationTokens key={orgVersion} members={members} projectNames={projectNames} onRevoke={revoke} ownTokensChanged={list.reload} />
      )}
      <ConfirmDialog request={confirm} onClose={() => setConfirm(null)} />
    </>
  );
}

/** Admins: every member's tokens (GET /v1/organization/tokens), revocable (DELETE /v1/tokens/{id}). */
function OrganizationTokens({
  members,
  projectNames,
  onRevoke,
  ownTokensChanged,
}: {
  members: Member[];
  projectNames: Map<string, string>;
  onRevoke: (token: { id: string; name: string }, after: () => void) => void;
  ownTokensChanged: () => void;
}) {
  const { me } = useSession();
  const list = useList(organization.tokens);
  const emails = new Map(members.map((m) => [m.user.id, m.user.email]));
  return (
    <>
      <h3 style={{ fontSize: '1rem', margin: '20px 0 8px' }}>All tokens in the organization</h3>
      <p className="muted" style={{ marginTop: 0 }}>
        As an admin you can revoke anyone&apos;s token, for example one that leaked or belongs to someone who left.
      </p>
      <PagedTable
        list={list}
        loadingLabel="Loading the organization's tokens…"
        empty={<Empty title="No tokens in the organization" />}
        columns={tokenColumns(true)}
        row={(token) => (
          <tr key={token.id}>
            <td>{token.name}</td>
            <td>{token.userId === me.user.id ? 'you' : (emails.get(token.userId) ?? <code>{token.userId}</code>)}</td>
            <TokenCells token={token} projectNames={projectNames} />
            <td>
              {tokenStatus(token) === 'active' && (
                <Button
                  variant="danger"
                  aria-label={`Revoke ${token.name} of ${emails.get(token.userId) ?? token.userId}`}
                  onClick={() =>
                    onRevoke(token, () => {
                      list.reload();
                      if (token.userId === me.user.id) ownTokensChanged();
                    })
                  }
                >
                  Revoke
                </Button>
              )}
            </td>
          </tr>
        )}
      />
    </>
  );
}
