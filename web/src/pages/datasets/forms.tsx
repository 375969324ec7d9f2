/** The dataset forms: a dataset's name and description, and an item's JSON (added or edited). */
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { datasets } from '../../api.js';
import { DeleteModal, useDeletion, type Deletion } from '../../components/list-page.js';
import { FormActions, type FormProps } from '../../components/ui.js';
import { useSubmit } from '../../hooks.js';
import type { Dataset, DatasetItem } from '../../types.js';
import { FormField, TextAreaField } from '../prompts/controls.js';
import { jsonText, parseJson } from './json.js';
import { itemsText } from './shared.js';
import '../prompts/controls.css';
import './datasets.css';

/** How the forms name the fields a problem points at (an add's `/items/0/input` too). */
export const ITEM_FIELDS = {
  id: 'Id',
  input: 'Input',
  expectedOutput: 'Expected output',
  metadata: 'Metadata',
  'items/*/id': 'Id',
  'items/*/input': 'Input',
  'items/*/expectedOutput': 'Expected output',
  'items/*/metadata': 'Metadata',
  datasetId: 'Dataset',
};
const DATASET_FIELDS = { name: 'Name', description: 'Description', metadata: 'Metadata' };

/** A dataset's name and description (creating one, or changing them). */
export function DatasetForm({ initial, submitLabel, onSubmit, onCancel }: FormProps<Dataset, { name: string; description: string }>) {
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const { busy, error, submit } = useSubmit(() => onSubmit({ name: name.trim(), description: description.trim() }));
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={initial ? `Edit ${initial.name}` : 'New dataset'}>
      <FormField label="Name" hint="Unique in your organization, whatever the case.">
        {(control) => <input {...control} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoFocus autoComplete="off" />}
      </FormField>
      <TextAreaField label="Description" value={description} onChange={setDescription} />
      <FormActions error={error} fields={DATASET_FIELDS} busy={busy} disabled={name.trim() === ''} submitLabel={submitLabel} onCancel={onCancel} />
    </form>
  );
}

/** Deleting a dataset (for admins and owners), then `done`. */
export const useDatasetDeletion = (done: (dataset: Dataset) => void) => useDeletion((dataset: Dataset) => datasets.delete(dataset.id), done);

/** "Delete dataset?": the dataset goes with every version of its items. */
export function DeleteDatasetModal({ of }: { of: Deletion<Dataset> }) {
  return (
    <DeleteModal of={of} title="Delete dataset" confirmLabel="Delete dataset">
      {(shown) => (
        <p>
          Delete <strong>{shown.name}</strong> with every version of its items ({itemsText(shown.itemCount)} now)? This cannot be undone.
        </p>
      )}
    </DeleteModal>
  );
}

type JsonKey = 'input' | 'expectedOutput' | 'metadata';
const LABELS: Record<JsonKey, string> = { input: 'Input', expectedOutput: 'Expected output', metadata: 'Metadata' };

/** What an item form sends: the values read from its text areas (`expectedOutput` null when left empty). */
export interface ItemValues {
  id?: string;
  input: unknown;
  expectedOutput: unknown;
  metadata: Record<string, unknown> | undefined;
}

/**
 * The text areas of an item's JSON, each checked before anything is sent: a fault is said under its
 * field (by the form's label) and the first faulty field takes the focus. `input` is required unless
 * `inputOptional`; an empty expected output is none (null); empty metadata is none.
 */
export function useItemFields(initial: { input?: unknown; expectedOutput?: unknown; metadata?: Record<string, unknown> | undefined }, inputOptional = false) {
  const [texts, setTexts] = useState<Record<JsonKey, string>>({
    input: jsonText(initial.input),
    expectedOutput: initial.expectedOutput === null ? '' : jsonText(initial.expectedOutput),
    metadata: initial.metadata && Object.keys(initial.metadata).length > 0 ? jsonText(initial.metadata) : '',
  });
  const [faults, setFaults] = useState<Partial<Record<JsonKey, string>>>({});
  const refs = { input: useRef<HTMLTextAreaElement>(null), expectedOutput: useRef<HTMLTextAreaElement>(null), metadata: useRef<HTMLTextAreaElement>(null) };

  /** The values, or null (the faults said, the first faulty field focused). */
  function read(): Omit<ItemValues, 'id'> | null {
    const parsed = {
      input: parseJson(texts.input, LABELS.input, { required: !inputOptional }),
      expectedOutput: parseJson(texts.expectedOutput, LABELS.expectedOutput, { empty: null }),
      metadata: parseJson(texts.metadata, LABELS.metadata, { object: true }),
    };
    const found: Partial<Record<JsonKey, string>> = {};
    for (const key of ['input', 'expectedOutput', 'metadata'] as const) {
      const result = parsed[key];
      if (!result.ok) found[key] = result.fault;
    }
    setFaults(found);
    const first = (['input', 'expectedOutput', 'metadata'] as const).find((key) => found[key]);
    if (first) {
      // After the render that says the fault (and opens a folded section holding the field).
      setTimeout(() => refs[first].current?.focus());
      return null;
    }
    const value = <K extends JsonKey>(key: K) => (parsed[key] as { value: unknown }).value;
    return { input: value('input'), expectedOutput: value('expectedOutput'), metadata: value('metadata') as Record<string, unknown> | undefined };
  }

  function field(key: JsonKey, hint: ReactNode, rows = 5) {
    return (
      <FormField label={LABELS[key]} hint={hint} error={faults[key]}>
        {(control) => (
          <textarea
            {...control}
            ref={refs[key]}
            className="sl-json-textarea"
            value={texts[key]}
            onChange={(e) => setTexts((t) => ({ ...t, [key]: e.target.value }))}
            rows={rows}
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            required={key === 'input' && !inputOptional}
          />
        )}
      </FormField>
    );
  }

  return { read, field };
}

const VALUE_HINT = 'JSON: an object, a list, a number, or text in "double quotes".';

/** An item's input, expected output and metadata (and, when adding, an optional id of the client's). */
export function ItemForm({ initial, submitLabel, onSubmit, onCancel }: FormProps<DatasetItem, ItemValues>) {
  const [id, setId] = useState('');
  const fields = useItemFields(initial ?? {});
  const values = useRef<ItemValues | null>(null);
  const { busy, error, submit } = useSubmit(() => onSubmit(values.current!));
  return (
    <form
      aria-label={initial ? `Edit item ${initial.id}` : 'Add an item'}
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        // Faults found here are said under their fields, and nothing is sent.
        const read = fields.read();
        if (!read) return;
        values.current = { ...read, ...(id.trim() ? { id: id.trim() } : {}) };
        void submit(e);
      }}
    >
      {!initial && (
        <FormField label="Id" hint="Optional: 1 to 128 of A–Z a–z 0–9 _ . : - (default: a generated dsi_ id). An id stays taken for good.">
          {(control) => (
            <input {...control} value={id} onChange={(e) => setId(e.target.value)} maxLength={128} autoCapitalize="off" autoComplete="off" spellCheck={false} />
          )}
        </FormField>
      )}
      {fields.field('input', VALUE_HINT, 6)}
      {fields.field('expectedOutput', `${VALUE_HINT} Empty: none.`, 6)}
      {fields.field('metadata', 'Optional: a JSON object, such as {"lang": "en"}.', 3)}
      <FormActions error={error} fields={ITEM_FIELDS} busy={busy} disabled={false} submitLabel={submitLabel} onCancel={onCancel} />
    </form>
  );
}
