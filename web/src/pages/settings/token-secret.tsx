import { Button, CopyButton, When } from '../../components/ui.js';
import type { NewToken } from '../../types.js';

export type Secret = NewToken & { rotated: boolean };

/** A token string, shown once (at creation or rotation): the server never shows it again. */
export function SecretReveal({ secret, onDone }: { secret: Secret; onDone: () => void }) {
  return (
    <div className="secret" role="status" aria-live="polite" style={{ margin: '12px 0' }}>
      <p style={{ margin: '0 0 6px' }}>
        <strong>{secret.rotated ? `Token “${secret.name}” rotated` : `Token “${secret.name}” created`}</strong>{' '}
        <span className="muted">
          (expires <When iso={secret.expiresAt} />)
        </span>
      </p>
      <p style={{ margin: '0 0 8px' }}>
        <strong>Copy it now: it will not be shown again.</strong> Store it in a secret store on your server.
        {secret.rotated && ' The previous token stops working now (or after the server’s rotation grace period, when one is set).'}
      </p>
      <code className="mono" data-testid="new-token" style={{ display: 'block', marginBottom: 8, userSelect: 'all' }}>
        {secret.token}
      </code>
      <div className="actions">
        <CopyButton text={secret.token} label="Copy token" />
        <Button variant="ghost" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}
