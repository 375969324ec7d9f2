import { useState, type ReactNode } from 'react';
import { Button, ErrorBox, Modal } from '../../components/ui.js';

export interface ConfirmRequest {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  run: () => Promise<void>;
}

/** Asks before a destructive action; the action's error (a problem document) stays in the dialog. */
export function ConfirmDialog({ request, onClose }: { request: ConfirmRequest | null; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => {
    if (busy) return;
    setError(null);
    onClose();
  };
  return (
    <Modal title={request?.title ?? ''} open={request !== null} onClose={close}>
      {request && (
        <div>
          <div>{request.message}</div>
          {error !== null && <ErrorBox error={error} />}
          <div className="actions" style={{ justifyContent: 'flex-end', marginTop: 16 }}>
            <Button onClick={close} disabled={busy}>
              Cancel
            </Button>
            <Button
              variant={request.danger === false ? 'primary' : 'danger'}
              disabled={busy}
              onClick={() => {
                setBusy(true);
                setError(null);
                request
                  .run()
                  .then(() => {
                    setBusy(false);
                    onClose();
                  })
                  .catch((e: unknown) => {
                    setBusy(false);
                    setError(e);
                  });
              }}
            >
              {busy ? 'Working…' : request.confirmLabel}
            </Button>
          </div>
        </div>
      )}
    </Modal>
  );
}
