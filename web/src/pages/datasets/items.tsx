/** A dataset's items at a version: the version picker, the items' table with their details, and adding, editing and deleting them. */
import { Fragment, useState } from 'react';
import { datasets } from '../../api.js';
import { actionsColumn, DeleteModal, useDeletion, Notice, RowActions } from '../../components/list-page.js';
import { RunValue } from '../../components/conversation.js';
import { narrow, PagedTable } from '../../components/paged.js';
import { CreateDialog, EditDialog } from '../../components/forms.js';
import { Button, JsonView, Panel, When } from '../../components/ui.js';
import { toggled, useList } from '../../hooks.js';
import { Link } from '../../router.js';
import { useSession } from '../../session.js';
import type { Dataset, DatasetItem, UpdateDatasetItemInput } from '../../types.js';
import { ItemForm } from './forms.js';
import { sameJson } from './json.js';
import { datasetPath } from './shared.js';
import { FormField } from '../prompts/controls.js';
import { Preview } from './preview.js';

/** An item's full input, expected output and metadata, where it came from and the version that wrote it. */
function ItemDetail({ item }: { item: DatasetItem }) {
  return (
    <div className="sl-ds-detail-body">
      <RunValue value={item.input} side="input" label="Input" />
      {item.expectedOutput === null ? (
        <section className="sl-value" aria-label="Expected output">
          <div className="sl-value-head">
            <h3>Expected output</h3>
          </div>
          <p className="muted">None.</p>
        </section>
      ) : (
        <RunValue value={item.expectedOutput} side="output" label="Expected output" />
      )}
      <section className="sl-value" aria-label="Metadata">
        <div className="sl-value-head">
          <h3>Metadata</h3>
        </div>
        {Object.keys(item.metadata).length === 0 ? <p className="muted">None.</p> : <JsonView value={item.metadata} />}
        <p className="muted">
          This state written at version {item.version}, <When iso={item.updatedAt} />; added <When iso={item.createdAt} />.
        </p>
      </section>
    </div>
  );
}

export function DatasetItems({
  dataset,
  version,
  onVersion,
  onChanged,
}: {
  dataset: Dataset;
  version: number;
  onVersion: (version: number) => void;
  onChanged: () => Promise<void>;
}) {
  const { can } = useSession();
  const latest = version === dataset.version;
  const mayWrite = can('scores:write') && latest;
  const list = useList(datasets.items(dataset.id), { version }, 50);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<DatasetItem | null>(null);
  const deletion = useDeletion(
    (item: DatasetItem) => datasets.removeItem(dataset.id, item.id),
    async (item) => {
      setNotice(`Item ${item.id} deleted.`);
      await onChanged();
    },
  );
  const [notice, setNotice] = useState('');
  const toggle = (id: string) => setExpanded((previous) => toggled(previous, id));
  const columns = 5 + (mayWrite ? 1 : 0);
  const versions = Array.from({ length: dataset.version }, (_, i) => dataset.version - i);

  return (
    <Panel heading="dataset-items" title={latest ? 'Items' : `Items at version ${version}`}>
      <div className="sl-ds-toolbar">
        {dataset.version > 0 && (
          <FormField label="Version">
            {(control) => (
              <select {...control} value={version} onChange={(e) => onVersion(Number(e.target.value))}>
                {versions.map((v) => (
                  <option key={v} value={v}>
                    v{v}
                    {v === dataset.version ? ' (latest)' : ''}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        )}
        {mayWrite && (
          <Button variant="primary" onClick={() => setAdding(true)}>
            Add item
          </Button>
        )}
      </div>
      {!latest && (
        <p className="sl-ds-note" role="note">
          You are reading version {version} of {dataset.version}, as it was: it is read-only. Items are added, edited and deleted at the latest version.{' '}
          <Link to={datasetPath(dataset.id)}>Go to the latest version</Link>
        </p>
      )}
      <Notice text={notice} />

      <PagedTable
        list={list}
        empty={{
          one: 'item',
          many: 'items',
          none:
            dataset.version > 0 && latest
              ? 'Every item has been deleted; earlier versions still hold them.'
              : can('scores:write')
                ? 'Add one with “Add item”, or add a run from its page with “Add to dataset”.'
                : 'Members add items here or from a run’s page.',
        }}
        label={`Items of ${dataset.name} at version ${version}`}
        columns={['Item', 'Input', 'Expected output', narrow('Source'), narrow('Updated'), ...actionsColumn(mayWrite, 'sl-actions-col')]}
        row={(item) => {
          const open = expanded.has(item.id);
          const detailId = `dataset-item-${item.id}`;
          return (
            <Fragment key={item.id}>
              <tr>
                <td>
                  <button
                    type="button"
                    className="sl-ds-toggle"
                    aria-expanded={open}
                    aria-controls={open ? detailId : undefined}
                    onClick={() => toggle(item.id)}
                    title={item.id}
                  >
                    <span aria-hidden="true">{open ? '▾' : '▸'}</span>
                    <span className="sl-sr-only">Details of item </span>
                    <code>{item.id}</code>
                  </button>
                </td>
                <td className="cell-wrap">
                  <Preview value={item.input} side="input" />
                </td>
                <td className="cell-wrap">
                  <Preview value={item.expectedOutput} side="output" />
                </td>
                <td className="hide-narrow">
                  {item.sourceRunId && item.sourceProjectId ? (
                    <Link
                      to={`/projects/${encodeURIComponent(item.sourceProjectId)}/runs/${encodeURIComponent(item.sourceRunId)}`}
                      title="The run it was added from"
                    >
                      <code>{item.sourceRunId}</code>
                    </Link>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="hide-narrow sl-nowrap">
                  <When iso={item.updatedAt} />
                </td>
                {mayWrite && <RowActions name={`item ${item.id}`} onEdit={() => setEditing(item)} onDelete={() => deletion.ask(item)} />}
              </tr>
              {open && (
                <tr className="sl-ds-detail" id={detailId}>
                  <td colSpan={columns}>
                    <ItemDetail item={item} />
                  </td>
                </tr>
              )}
            </Fragment>
          );
        }}
      />

      <CreateDialog
        title={`Add an item to ${dataset.name}`}
        open={adding}
        onClose={() => setAdding(false)}
        form={ItemForm}
        submitLabel="Add item"
        onSubmit={async ({ id, input, expectedOutput, metadata }) => {
          const added = await datasets.addItems(dataset.id, {
            items: [{ ...(id ? { id } : {}), input, expectedOutput, ...(metadata ? { metadata } : {}) }],
          });
          setAdding(false);
          setNotice(`Item ${added.items[0]?.id ?? ''} added: version ${added.version}.`);
          await onChanged();
        }}
      />

      <EditDialog
        title={editing ? `Edit item ${editing.id}` : 'Edit item'}
        item={editing}
        onClose={() => setEditing(null)}
        form={ItemForm}
        submitLabel="Save as a new version"
        onSubmit={async ({ input, expectedOutput, metadata }, item) => {
          const changes: UpdateDatasetItemInput = {};
          if (!sameJson(input, item.input)) changes.input = input;
          if (!sameJson(expectedOutput, item.expectedOutput)) changes.expectedOutput = expectedOutput;
          if (!sameJson(metadata ?? {}, item.metadata)) changes.metadata = metadata ?? {};
          if (Object.keys(changes).length === 0) return;
          const updated = await datasets.updateItem(dataset.id, item.id, changes);
          setNotice(`Item ${updated.id} saved: version ${updated.version}.`);
          // Closed before the list reloads, as the create above.
          setEditing(null);
          await onChanged();
        }}
      />

      <DeleteModal of={deletion} title="Delete item" confirmLabel="Delete item">
        {(item) => (
          <p>
            Delete the item <code>{item.id}</code>? This makes version {dataset.version + 1} without it; earlier versions keep it as it was, and its id stays
            taken.
          </p>
        )}
      </DeleteModal>
    </Panel>
  );
}
