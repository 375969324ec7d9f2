import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Dialog, Heading, Modal as AriaModal, ModalOverlay } from 'react-aria-components';
import { Button } from './ui.js';

/** A modal dialog (React Aria's): named by its heading, focus kept inside (taken back when its content is replaced) and then
 *  returned, the page behind inert and still; Escape or ✕ asks `onClose`, which may refuse (it stays while `open`). */
export function Modal({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const dialog = useRef<HTMLElement>(null);
  useEffect(() => {
    if (document.activeElement === document.body) dialog.current?.focus();
  });
  return (
    <ModalOverlay className="modal-overlay" isOpen={open} onOpenChange={(isOpen) => !isOpen && onClose()}>
      <AriaModal className="modal">
        <Dialog className="modal-dialog" ref={dialog}>
          <div className="modal-head">
            <Heading slot="title" level={2}>
              {title}
            </Heading>
            <Button variant="ghost" aria-label="Close" onClick={onClose}>
              ✕
            </Button>
          </div>
          {children}
        </Dialog>
      </AriaModal>
    </ModalOverlay>
  );
}

/** A button that opens a dialog named `title`: `children` is its content, given the way to close it. */
export function DialogButton({ label, title, children }: { label: string; title: string; children: (close: () => void) => ReactNode }) {
  const [open, setOpen] = useState(false);
  const close = () => setOpen(false);
  return (
    <>
      <Button onClick={() => setOpen(true)}>{label}</Button>
      <Modal title={title} open={open} onClose={close}>
        {children(close)}
      </Modal>
    </>
  );
}
