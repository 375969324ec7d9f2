import { useState } from 'react';
import { datasets } from '../api.js';
import { EditDialog } from '../components/forms.js';
import { Button, Empty, Fact, ErrorBox, PageHeader, When } from '../components/ui.js';
import { useAsync, useDocumentTitle } from '../hooks.js';
import { Link, navigate, useLocation } from '../router.js';
import { useSession } from '../session.js';
import type { UpdateDatasetInput } from '../types.js';
import { DatasetForm, DeleteDatasetModal, useDatasetDeletion } from './datasets/forms.js';
import { DatasetItems } from './datasets/items.js';
import { datasetPath, itemsText } from './datasets/shared.js';
import { DatasetExperiments } from './experiments/dataset-experiments.js';
import { Breadcrumbs, Pending, setQuery } from './runs/shared.js';
import './runs/runs.css';
import './trace/trace.css';
import './datasets/datasets.css';

/** The `?version=` asked for: null when none, NaN when it is not a whole number. */
function askedVersion(text: string | null): number | null {
  if (text === null) return null;
  return /^\d{1,10}$/.test(text) ? Number(text) : NaN;
}

/**
 * One dataset: its name, description and current version, and its items at the version chosen (the
 * latest unless the URL's `?version=` names an earlier one). At the latest version, members and up add,
 * edit and delete items, each change a new version; an earlier version reads as it was, and only reads.
 */
export function DatasetPage({ datasetId }: { datasetId: string }) {
  const { can } = useSession();
  const { path, search } = useLocation();
  const state = useAsync(() => datasets.get(datasetId), `dataset:${datasetId}`);
  const dataset = state.data?.id === datasetId ? state.data : undefined;
  useDocumentTitle(dataset?.name ?? 'Dataset', 'Datasets');
  const [editing, setEditing] = useState(false);
  const deletion = useDatasetDeletion(() => navigate('/datasets', { replace: true }));

  const crumbs = [{ label: 'Datasets', to: '/datasets' }, { label: dataset?.name ?? datasetId }];
  if (!dataset) return <Pending crumbs={crumbs} state={state} label="Loading dataset…" back={<Link to="/datasets">← Back to the datasets</Link>} />;

  const asked = askedVersion(search.get('version'));
  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title={<span className="sl-title">{dataset.name}</span>}
        subtitle={dataset.description || undefined}
        actions={
          <>
            {can('scores:write') && <Button onClick={() => setEditing(true)}>Rename</Button>}
            {can('quality:admin') && (
              <Button variant="danger" onClick={() => deletion.ask(dataset)}>
                Delete dataset
              </Button>
            )}
            <Button onClick={() => void state.reload()} disabled={state.loading}>
              ↻ Refresh
            </Button>
          </>
        }
      />
      <dl className="sl-ds-facts">
        <Fact label="Version">v{dataset.version}</Fact>
        <Fact label="Items">{itemsText(dataset.itemCount)}</Fact>
        <Fact label="Updated">
          <When iso={dataset.updatedAt} />
        </Fact>
        <Fact label="Id">
          <code>{dataset.id}</code>
        </Fact>
      </dl>
      {state.error !== null && state.error !== undefined && <ErrorBox error={state.error} onRetry={state.reload} />}

      {asked !== null && !(asked >= 1 && asked <= dataset.version) ? (
        <Empty title={`This dataset has no version ${search.get('version')}`}>
          Its versions run from 1 to {dataset.version}. <Link to={datasetPath(dataset.id)}>Read the latest version</Link>
        </Empty>
      ) : (
        <DatasetItems
          dataset={dataset}
          version={asked ?? dataset.version}
          onVersion={(version) => {
            const params = new URLSearchParams(search);
            if (version === dataset.version) params.delete('version');
            else params.set('version', String(version));
            setQuery(path, params);
          }}
          onChanged={async () => {
            // The next state is the latest version: a URL that named a version stops naming one.
            if (search.has('version')) setQuery(path, new URLSearchParams(), { replace: true });
            await state.reload();
          }}
        />
      )}

      <DatasetExperiments dataset={dataset} />

      <EditDialog
        title={`Rename ${dataset.name}`}
        item={editing ? dataset : null}
        onClose={() => setEditing(false)}
        form={DatasetForm}
        submitLabel="Save"
        onSubmit={async (body) => {
          const changes: UpdateDatasetInput = {};
          if (body.name !== dataset.name) changes.name = body.name;
          if (body.description !== dataset.description) changes.description = body.description;
          if (Object.keys(changes).length > 0) state.setData(await datasets.update(dataset.id, changes));
        }}
      />

      <DeleteDatasetModal of={deletion} />
    </>
  );
}
