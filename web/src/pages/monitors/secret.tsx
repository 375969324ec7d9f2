import { CopyButton } from '../../components/ui.js';

/** A webhook signing secret, displayed the one time the server sends it. */
export function SecretReveal({ secret }: { secret: string }) {
  return (
    <div className="secret-box" role="status">
      <strong>Webhook signing secret — shown once</strong>
      <div className="secret">
        <code>{secret}</code>
      </div>
      <div className="state-line">
        <CopyButton text={secret} label="Copy secret" />
        <span className="muted">Store it now: it is shown once and cannot be read again (rotate it to get a new one).</span>
      </div>
      <p className="muted" style={{ margin: 0 }}>
        Verify each delivery's <code>Sightline-Signature</code> header with it: an HMAC-SHA256 of <code>&lt;t&gt;.&lt;raw body&gt;</code>.
      </p>
    </div>
  );
}
