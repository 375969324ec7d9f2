import { useState } from 'react';
import { datasets } from '../api.js';
import { actionsColumn, FilterForm, Notice, removing, RowActions, SearchField } from '../components/list-page.js';
import { narrow, num, PagedTable } from '../components/paged.js';
import { CreateDialog } from '../components/forms.js';
import { NewButton, PageHeader, When } from '../components/ui.js';
import { fmtNumber } from '../format.js';
import { useDocumentTitle, useList } from '../hooks.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import { DatasetForm, DeleteDatasetModal, useDatasetDeletion } from './datasets/forms.js';
import { datasetPath } from './datasets/shared.js';
import { useDebounced } from './prompts/controls.js';
import './runs/runs.css';
import './datasets/datasets.css';

/**
 * The organization's datasets, newest first, filtered by a part of the name: members and up create them
 * (a new one opens on its page, to add its first items), admins and owners delete them.
 */
export function DatasetsPage() {
  useDocumentTitle('Datasets');
  const { can } = useSession();
  const mayWrite = can('scores:write');
  const mayDelete = can('quality:admin');
  const [search, setSearch] = useState('');
  const name = useDebounced(search.trim(), 300);
  const list = useList(datasets.list, { name: name || undefined });
  const [creating, setCreating] = useState(false);
  const deletion = useDatasetDeletion((deleted) => {
    list.setItems(removing(deleted));
    setNotice(`Dataset ${deleted.name} deleted.`);
  });
  const [notice, setNotice] = useState('');

  async function create(body: { name: string; description: string }) {
    const dataset = await datasets.create({ name: body.name, ...(body.description ? { description: body.description } : {}) });
    navigate(datasetPath(dataset.id));
  }

  return (
    <>
      <PageHeader
        title="Datasets"
        subtitle="Examples to test your application against: each item an input and the output expected of it. Every change to the items makes a new version, and any version reads back as it was."
        actions={mayWrite && <NewButton label="New dataset" onClick={() => setCreating(true)} />}
      />

      <FilterForm label="Filter datasets">
        <SearchField label="Search datasets" value={search} onChange={setSearch} placeholder="Part of a name" maxLength={200} autoComplete="off" />
      </FilterForm>

      <Notice text={notice} />

      <PagedTable
        list={list}
        empty={{
          one: 'dataset',
          many: 'datasets',
          filtered: name !== '',
          whenFiltered: 'Change or clear the search.',
          none: mayWrite
            ? 'Create one with “New dataset”, then add items to it, or add runs to it from their page.'
            : 'Members of your organization create them; they appear here.',
        }}
        caption="Datasets, newest first"
        columns={['Name', narrow('Description'), num('Items'), num('Version'), narrow('Updated'), ...actionsColumn(mayDelete, 'sl-actions-col')]}
        row={(dataset) => (
          <tr key={dataset.id}>
            <td className="cell-wrap">
              <Link to={datasetPath(dataset.id)} className="sl-strong-link">
                {dataset.name}
              </Link>
            </td>
            <td className="hide-narrow cell-wrap">
              {dataset.description ? <span className="muted sl-clamp">{dataset.description}</span> : <span className="muted">—</span>}
            </td>
            <td className="num">{fmtNumber(dataset.itemCount)}</td>
            <td className="num">v{dataset.version}</td>
            <td className="hide-narrow sl-nowrap">
              <When iso={dataset.updatedAt} />
            </td>
            {mayDelete && <RowActions name={dataset.name} onDelete={() => deletion.ask(dataset)} />}
          </tr>
        )}
      />

      <CreateDialog title="New dataset" open={creating} onClose={() => setCreating(false)} form={DatasetForm} submitLabel="Create dataset" onSubmit={create} />

      <DeleteDatasetModal of={deletion} />
    </>
  );
}
