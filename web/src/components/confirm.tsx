import { useEffect, useState, type ReactNode } from 'react';
import { navigate } from '../router.js';
import { Button, ErrorBox } from './ui.js';
import { Modal } from './modal.js';

/**
 * "Are you sure?" before an action: Cancel, or the action, busy while it runs (the dialog cannot be
 * cancelled then). The action's error (a problem document, such as a 403) is shown in place; on success
 * the caller closes the dialog or goes elsewhere.
 */
export function ConfirmModal({
  open,
  title,
  children,
  confirmLabel,
  busyLabel = 'Working…',
  danger = true,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  /** A destructive action (the default) has a red button. */
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (open) setError(null);
  }, [open]);
  const close = () => {
    if (!busy) onClose();
  };
  return (
    <Modal title={title} open={open} onClose={close}>
      <div>{children}</div>
      {error !== null && <ErrorBox error={error} />}
      <div className="form-actions">
        <Button onClick={close} disabled={busy}>
          Cancel
        </Button>
        <Button
          variant={danger ? 'danger' : 'primary'}
          disabled={busy}
          onClick={() => {
            setBusy(true);
            setError(null);
            onConfirm()
              .catch((e: unknown) => setError(e))
              .finally(() => setBusy(false));
          }}
        >
          {busy ? busyLabel : confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}

/** "Delete <name>?" on a record's own page: confirmed, `remove` deletes the record and the page goes `back` to its list. */
export function DeleteRecordModal({
  open,
  name,
  confirmLabel,
  onClose,
  remove,
  back,
  children,
}: {
  open: boolean;
  name: string;
  confirmLabel: string;
  onClose: () => void;
  remove: () => Promise<void>;
  back: string;
  children: ReactNode;
}) {
  return (
    <ConfirmModal
      open={open}
      title={`Delete ${name}?`}
      confirmLabel={confirmLabel}
      onClose={onClose}
      onConfirm={async () => {
        await remove();
        navigate(back);
      }}
    >
      {children}
    </ConfirmModal>
  );
}
