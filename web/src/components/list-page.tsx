/**
 * What a list page puts around its table, the same on every page: the filter form, the notice said to
 * screen readers after a change, the row's action buttons and their column, "Delete …?", and the list
 * updates after a create, an edit or a delete.
 */
import { useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { ConfirmModal } from './confirm.js';
import type { Column } from './paged.js';
import { Button, Field } from './ui.js';

/** The filters above a list: applied as they change (`onSubmit` for a form applied on Enter); `search` makes it a search landmark. */
export function FilterForm({ label, search = true, onSubmit, children }: { label?: string; search?: boolean; onSubmit?: () => void; children: ReactNode }) {
  return (
    <form
      className="filters"
      role={search ? 'search' : undefined}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit?.();
      }}
    >
      {children}
    </form>
  );
}

/** A labelled search box over a list: its text as typed (the page trims and debounces it). */
export function SearchField({
  label,
  value,
  onChange,
  ...input
}: { label: string; value: string; onChange: (value: string) => void } & Pick<
  InputHTMLAttributes<HTMLInputElement>,
  'placeholder' | 'maxLength' | 'autoComplete'
>) {
  return (
    <Field label={label}>
      <input type="search" value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </Field>
  );
}

/** What a change did, said to screen readers (the list shows it). */
export function Notice({ text }: { text: string }) {
  return (
    <p className="sl-sr-only" role="status" aria-live="polite">
      {text}
    </p>
  );
}

/** The heading of a row actions column, when there is one: hidden but for screen readers. */
export function actionsColumn(shown: boolean, className?: string): Column[] {
  return shown ? [{ label: <span className="sl-sr-only">Actions</span>, className }] : [];
}

/** A row's action buttons: `children` first, then Edit and Delete (each named for the item: "Edit <name>") where given. */
export function RowActions({ name, onEdit, onDelete, children }: { name: string; onEdit?: () => void; onDelete?: () => void; children?: ReactNode }) {
  return (
    <td className="sl-row-actions">
      {children}
      {onEdit && (
        <Button aria-label={`Edit ${name}`} onClick={onEdit}>
          Edit
        </Button>
      )}
      {onDelete && (
        <Button variant="danger" aria-label={`Delete ${name}`} onClick={onDelete}>
          Delete
        </Button>
      )}
    </td>
  );
}

/**
 * The item a list asks to delete: `ask(item)` opens "Delete …?" (`DeleteModal`), `close()` closes it;
 * confirmed, `remove` deletes it, the question closes and `done` follows (the list updated, a notice said).
 */
export function useDeletion<T>(remove: (item: T) => Promise<void>, done: (item: T) => void | Promise<void>) {
  const [item, setItem] = useState<T | null>(null);
  const close = () => setItem(null);
  const confirm = async (asked: T) => {
    await remove(asked);
    close();
    await done(asked);
  };
  return { item, ask: setItem, close, confirm };
}

/** What `useDeletion` gives a page. */
export type Deletion<T> = ReturnType<typeof useDeletion<T>>;

/** "Delete …?" about the item `of` asks for (open while there is one), busy "Deleting…" while it goes; `children` says what goes with it. */
export function DeleteModal<T>({
  of,
  title,
  confirmLabel,
  children,
}: {
  of: Deletion<T>;
  title: string;
  confirmLabel: string;
  children: (item: T) => ReactNode;
}) {
  const { item } = of;
  return (
    <ConfirmModal
      open={item !== null}
      title={title}
      confirmLabel={confirmLabel}
      busyLabel="Deleting…"
      onClose={of.close}
      onConfirm={async () => {
        if (item !== null) await of.confirm(item);
      }}
    >
      {item !== null && children(item)}
    </ConfirmModal>
  );
}

type Identified = { id: string };

/** For `list.setItems`: the items with `added` first (once). */
export const adding =
  <T extends Identified>(added: T) =>
  (items: T[]) => [added, ...items.filter((item) => item.id !== added.id)];

/** For `list.setItems`: the items with `updated` in place of its former state. */
export const replacing =
  <T extends Identified>(updated: T) =>
  (items: T[]) =>
    items.map((item) => (item.id === updated.id ? updated : item));

/** For `list.setItems`: the items without `removed`. */
export const removing =
  <T extends Identified>(removed: Identified) =>
  (items: T[]) =>
    items.filter((item) => item.id !== removed.id);

/**
 * A column heading that sorts its list by start time (the one key the API sorts on either way: a run's
 * start never changes, so a list walked by cursor stays exact): a button that turns newest first into
 * oldest first and back, with `aria-sort` on the heading.
 */
export function StartSortHeading({
  label,
  order,
  onOrder,
  className,
}: {
  label: string;
  order: 'desc' | 'asc';
  onOrder: (next: 'desc' | 'asc') => void;
  className?: string;
}) {
  const next = order === 'desc' ? 'asc' : 'desc';
  return (
    <span role="columnheader" className={className} aria-sort={order === 'desc' ? 'descending' : 'ascending'}>
      <button
        type="button"
        className="sl-sort"
        title={`Sorted by start time, ${order === 'desc' ? 'newest' : 'oldest'} first: show ${next === 'desc' ? 'newest' : 'oldest'} first`}
        onClick={() => onOrder(next)}
      >
        {label}
        <span aria-hidden="true" className="sl-sort-mark">
          {order === 'desc' ? '↓' : '↑'}
        </span>
        <span className="sl-sr-only">, by start time, {order === 'desc' ? 'newest' : 'oldest'} first</span>
      </button>
    </span>
  );
}
