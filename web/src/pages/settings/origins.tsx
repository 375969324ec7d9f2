import { useState, type FormEvent } from 'react';
import { organization } from '../../api.js';
import type { FieldLabels } from '../../components/problems.js';
import { Button, Empty, ErrorBox, Field, Loading } from '../../components/ui.js';
import { useAsync } from '../../hooks.js';
import { useSession } from '../../session.js';

/** The list is sent whole: a fault in its second origin is `/allowedOrigins/1` (components/problems.tsx). */
const FIELDS: FieldLabels = { allowedOrigins: 'Allowed origins', 'allowedOrigins/*': 'Allowed origin {n}' };

/**
 * Custom CORS origins of the organization (GET/PATCH /v1/organization, `allowedOrigins`). The plan's
 * quota is the server's to enforce: its refusal is shown as the problem it sends.
 */
export function OriginsPanel() {
  const { can } = useSession();
  const admin = can('organization:admin');
  const org = useAsync(() => organization.get(), 'organization');
  const [origin, setOrigin] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const save = async (allowedOrigins: string[]) => {
    setBusy(true);
    setError(null);
    try {
      org.setData(await organization.update({ allowedOrigins }));
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const add = async (event: FormEvent, current: string[]) => {
    event.preventDefault();
    const value = origin.trim();
    if (value === '') return;
    if (current.includes(value)) {
      setOrigin('');
      return;
    }
    if (await save([...current, value])) setOrigin('');
  };

  const notice = (
    <p className="muted" style={{ marginTop: 0 }}>
      Browser applications on these origins may call the API with a token (CORS); the dashboard&apos;s own origin is always allowed, and only it may use the
      session cookie. Each is an exact origin: <code>https://host[:port]</code>, or <code>http://localhost:&lt;port&gt;</code> for development.{' '}
      <strong>Keep tokens on servers:</strong> a token shipped to a browser can be read by anyone who uses the page; call Sightline from your backend or through
      a server-side proxy instead.
    </p>
  );

  if (org.error !== undefined) {
    return (
      <>
        {notice}
        <ErrorBox error={org.error} onRetry={() => void org.reload()} />
      </>
    );
  }
  if (!org.data) {
    return (
      <>
        {notice}
        <Loading label="Loading allowed origins…" />
      </>
    );
  }
  const current = org.data.allowedOrigins;
  return (
    <>
      {notice}
      <p style={{ marginTop: 0 }}>
        Plan: <strong>{org.data.plan}</strong> <span className="muted">(the plan sets how many custom origins you may list; an operator can allow more)</span>
      </p>
      {error !== null && <ErrorBox error={error} fields={FIELDS} />}
      {current.length === 0 ? (
        <Empty title="No custom origins">Only the dashboard&apos;s own origin may call the API from a browser.</Empty>
      ) : (
        <ul aria-label="Allowed origins" style={{ listStyle: 'none', padding: 0, margin: '0 0 12px' }}>
          {current.map((o) => (
            <li key={o} style={{ display: 'flex', alignItems: 'center', gap: 8, padding: '4px 0', borderBottom: '1px solid var(--border)' }}>
              <code style={{ flex: 1, wordBreak: 'break-all' }}>{o}</code>
              {admin && (
                <Button variant="danger" disabled={busy} aria-label={`Remove ${o}`} onClick={() => void save(current.filter((x) => x !== o))}>
                  Remove
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {admin ? (
        <form className="inline-form" onSubmit={(e) => void add(e, current)} aria-label="Add an allowed origin" style={{ marginTop: 12 }}>
          <Field label="Origin">
            <input
              value={origin}
              onChange={(e) => setOrigin(e.target.value)}
              placeholder="https://app.example.com"
              autoComplete="off"
              inputMode="url"
              spellCheck={false}
              required
            />
          </Field>
          <Button type="submit" variant="primary" disabled={busy || origin.trim() === ''}>
            {busy ? 'Saving…' : 'Add origin'}
          </Button>
        </form>
      ) : (
        <p className="muted">Only admins and owners change the allowed origins.</p>
      )}
    </>
  );
}
