/**
 * A form in a dialog, the same on every page that creates or edits something: the form's Cancel, the
 * dialog's close button and Escape close it, and so does a submission once the page's `onSubmit` is done
 * (a failed one leaves the dialog open, its error shown in the form).
 */
import type { ComponentType } from 'react';
import { type FormProps } from './ui.js';
import { Modal } from './modal.js';

type DialogForm<Initial, Body> = {
  title: string;
  onClose: () => void;
  /** The form (`FormProps`): given the submit label, Cancel and the submission. */
  form: ComponentType<FormProps<Initial, Body>>;
  submitLabel: string;
};

/** The dialog that creates: `form` empty, open while `open`. */
export function CreateDialog<Body>({
  title,
  open,
  onClose,
  form: Form,
  submitLabel,
  onSubmit,
}: DialogForm<never, Body> & { open: boolean; onSubmit: (body: Body) => Promise<void> }) {
  return (
    <Modal title={title} open={open} onClose={onClose}>
      <Form
        submitLabel={submitLabel}
        onCancel={onClose}
        onSubmit={async (body) => {
          await onSubmit(body);
          onClose();
        }}
      />
    </Modal>
  );
}

/** The dialog that edits `item`, open while there is one: `form` starts from it, and `onSubmit` is given it with the form's body. */
export function EditDialog<T, Body>({
  title,
  item,
  onClose,
  form: Form,
  submitLabel,
  onSubmit,
}: DialogForm<T, Body> & { item: T | null; onSubmit: (body: Body, item: T) => Promise<void> }) {
  return (
    <Modal title={title} open={item !== null} onClose={onClose}>
      {item !== null && (
        <Form
          initial={item}
          submitLabel={submitLabel}
          onCancel={onClose}
          onSubmit={async (body) => {
            await onSubmit(body, item);
            onClose();
          }}
        />
      )}
    </Modal>
  );
}
