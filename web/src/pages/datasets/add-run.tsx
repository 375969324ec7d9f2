/** "Add to dataset" on a run: a dataset picked from the organization's, the run's values or others, then a link to the dataset. */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { datasets } from '../../api.js';
import { Button, FormActions } from '../../components/ui.js';
import { DialogButton } from '../../components/modal.js';
import { useList, useSubmit } from '../../hooks.js';
import { Link } from '../../router.js';
import { useSession } from '../../session.js';
import type { AddRunToDatasetInput, DatasetItem, Run } from '../../types.js';
import { FormField, useDebounced } from '../prompts/controls.js';
import { ITEM_FIELDS, useItemFields } from './forms.js';
import { sameJson } from './json.js';
import { datasetPath, itemsText } from './shared.js';

/** The button and its dialog, for members and up (nothing for a viewer). */
export function AddToDataset({ projectId, run }: { projectId: string; run: Run }) {
  const { can } = useSession();
  if (!can('scores:write')) return null;
  return (
    <DialogButton label="Add to dataset" title="Add to dataset">
      {(close) => <AddRunForm projectId={projectId} run={run} onClose={close} />}
    </DialogButton>
  );
}

function AddRunForm({ projectId, run, onClose }: { projectId: string; run: Run; onClose: () => void }) {
  const [search, setSearch] = useState('');
  const name = useDebounced(search.trim(), 300);
  const list = useList(datasets.list, { name: name || undefined }, 100);
  const [datasetId, setDatasetId] = useState('');
  const [overrides, setOverrides] = useState(false);
  const fields = useItemFields({ input: run.inputs, expectedOutput: run.outputs });
  const body = useRef<AddRunToDatasetInput | null>(null);
  const [added, setAdded] = useState<{ item: DatasetItem; name: string } | null>(null);
  const chosen = list.items.find((d) => d.id === datasetId);
  // Once added, the form's buttons are gone: the focus moves to the link to the dataset.
  const done = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (added) done.current?.querySelector('a')?.focus();
  }, [added]);
  const { busy, error, submit } = useSubmit(async () => {
    const item = await datasets.addRun(projectId, run.id, body.current!);
    setAdded({ item, name: chosen?.name ?? item.datasetId });
  });

  if (added) {
    return (
      <div ref={done}>
        <p role="status" className="sl-ds-done">
          Added to <strong>{added.name}</strong> as item <code>{added.item.id}</code> (version {added.item.version}).
        </p>
        <div className="sl-form-actions">
          <Link to={datasetPath(added.item.datasetId)} className="button primary">
            Open {added.name}
          </Link>
          <Button onClick={onClose}>Done</Button>
        </div>
      </div>
    );
  }

  // The dataset list's states: the search is offered once there are more than one page of datasets.
  const searchable = list.hasMore || name !== '';
  return (
    <form
      aria-label="Add this run to a dataset"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        const values = fields.read();
        if (!values) setOverrides(true); // where the faults are said
        if (!values || datasetId === '') return;
        // The run's own values are the default: only what was changed is sent.
        body.current = {
          datasetId,
          ...(sameJson(values.input, run.inputs) ? {} : { input: values.input }),
          ...(sameJson(values.expectedOutput, run.outputs) ? {} : { expectedOutput: values.expectedOutput }),
          ...(values.metadata ? { metadata: values.metadata } : {}),
        };
        void submit(e);
      }}
    >
      <p className="muted" style={{ marginTop: 0 }}>
        A new item of the dataset (its next version): the run’s inputs as its input and its outputs as the expected output, unless you change them below.
      </p>
      {searchable && (
        <FormField label="Find a dataset">
          {(control) => (
            <input {...control} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Part of a name" autoComplete="off" />
          )}
        </FormField>
      )}
      <FormField
        label="Dataset"
        hint={
          list.error ? (
            <>
              The datasets could not be listed.{' '}
              <button type="button" className="link" onClick={list.reload}>
                Retry
              </button>
            </>
          ) : list.loaded && list.items.length === 0 ? (
            name ? (
              'No dataset matches this search.'
            ) : (
              <>
                No datasets yet: <Link to="/datasets">create one on the Datasets page</Link>.
              </>
            )
          ) : list.hasMore ? (
            'The 100 newest are listed: search for another.'
          ) : undefined
        }
      >
        {(control) => (
          <select {...control} value={datasetId} onChange={(e) => setDatasetId(e.target.value)} required>
            <option value="">{list.loading && list.items.length === 0 ? 'Loading datasets…' : 'Choose a dataset…'}</option>
            {list.items.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} (v{d.version}, {itemsText(d.itemCount)})
              </option>
            ))}
          </select>
        )}
      </FormField>
      <details className="sl-ds-overrides" open={overrides} onToggle={(e) => setOverrides(e.currentTarget.open)}>
        <summary>Change the input, expected output or metadata</summary>
        {fields.field('input', 'JSON; the run’s inputs unless changed.', 6)}
        {fields.field('expectedOutput', 'JSON; the run’s outputs unless changed. Empty: none.', 6)}
        {fields.field('metadata', 'Optional: a JSON object, such as {"lang": "en"}.', 3)}
      </details>
      <FormActions error={error} fields={ITEM_FIELDS} busy={busy} disabled={datasetId === ''} submitLabel="Add to dataset" onCancel={onClose} />
    </form>
  );
}
