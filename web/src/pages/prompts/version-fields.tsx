import { useState, type FormEvent, type ReactNode } from 'react';
import type { FieldLabels } from '../../components/problems.js';
import { FormActions } from '../../components/ui.js';
import type { CreateVersionInput } from '../../types.js';
import { Checkbox, FormField, InvalidBox } from './controls.js';
import { MessagesEditor } from './messages-editor.js';
import { switchFormat, versionBody, type VersionDraft } from './template.js';

/** A prompt's and a version's fields by their pointers, as the form names them (components/problems.tsx). */
const FIELDS: FieldLabels = {
  name: 'Name',
  description: 'Description',
  template: 'Template',
  'template/*': 'Message {n}',
  'template/*/role': 'Role of message {n}',
  'template/*/content': 'Content of message {n}',
  config: 'Config (JSON)',
  message: 'Message',
};

/**
 * A form that creates a version (a new prompt's first one, or the next): `children` above the version's
 * fields, which are checked before `create` sends them; the server's problem is shown in place.
 */
export function VersionForm({
  initial,
  submitLabel,
  create,
  onCancel,
  children,
}: {
  initial: VersionDraft;
  submitLabel: string;
  create: (version: CreateVersionInput) => Promise<void>;
  onCancel: () => void;
  children: ReactNode;
}) {
  const [draft, setDraft] = useState(initial);
  const [invalid, setInvalid] = useState<{ title: string; detail: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const body = versionBody(draft);
    if (!body.ok) {
      setInvalid(body);
      return;
    }
    setInvalid(null);
    setBusy(true);
    // On success the form goes away (a page or a dialog closes): it stays busy until then.
    create(body.value).catch((e: unknown) => {
      setError(e);
      setBusy(false);
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      {children}
      <VersionFields
        draft={draft}
        onChange={(next) => {
          setDraft(next);
          setInvalid(null);
        }}
      />
      {invalid && <InvalidBox {...invalid} />}
      <FormActions
        error={error}
        fields={FIELDS}
        busy={busy}
        busyLabel="Creating…"
        disabled={false}
        submitLabel={submitLabel}
        onCancel={onCancel}
        className="form-actions"
      />
    </form>
  );
}

/** The fields of a version: its template (a string, or chat messages one row each), config and message. */
export function VersionFields({ draft, onChange }: { draft: VersionDraft; onChange: (draft: VersionDraft) => void }) {
  return (
    <>
      <Checkbox
        label="Chat messages"
        checked={draft.chat}
        onChange={(chat) => onChange(switchFormat(draft, chat))}
        hint="A list of messages, each with a role (system, user, assistant or tool), instead of one text."
      />
      {draft.chat ? (
        <MessagesEditor messages={draft.messages} onChange={(messages) => onChange({ ...draft, messages })} />
      ) : (
        <FormField label="Template" hint="Plain text. Variables are written {{variable}}.">
          {(control) => <textarea {...control} required rows={7} value={draft.text} onChange={(e) => onChange({ ...draft, text: e.target.value })} />}
        </FormField>
      )}
      <FormField label="Config (JSON)" hint='Optional model settings, e.g. {"model": "gpt-4o", "temperature": 0.2}.'>
        {(control) => (
          <textarea
            {...control}
            rows={3}
            style={{ minHeight: 72 }}
            spellCheck={false}
            value={draft.config}
            onChange={(e) => onChange({ ...draft, config: e.target.value })}
          />
        )}
      </FormField>
      <FormField label="Message" hint="What changed, like a commit message (optional).">
        {(control) => <input {...control} maxLength={2000} value={draft.message} onChange={(e) => onChange({ ...draft, message: e.target.value })} />}
      </FormField>
    </>
  );
}
