import type { ReactNode } from 'react';
import { ConfirmModal } from '../../components/confirm.js';

export interface ConfirmRequest {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  run: () => Promise<void>;
}

/** Asks before an action on a token or a member; the dialog closes once the action is done. */
export function ConfirmDialog({ request, onClose }: { request: ConfirmRequest | null; onClose: () => void }) {
  return (
    <ConfirmModal
      open={request !== null}
      title={request?.title ?? ''}
      confirmLabel={request?.confirmLabel ?? ''}
      danger={request?.danger !== false}
      onClose={onClose}
      onConfirm={async () => {
        await request?.run();
        onClose();
      }}
    >
      {request?.message}
    </ConfirmModal>
  );
}
