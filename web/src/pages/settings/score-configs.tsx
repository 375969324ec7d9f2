import { useState } from 'react';
import { scoreConfigs } from '../../api.js';
import { actionsColumn, adding, DeleteModal, useDeletion, removing, replacing, RowActions } from '../../components/list-page.js';
import { narrow, PagedTable } from '../../components/paged.js';
import { CreateDialog } from '../../components/forms.js';
import { Button, ErrorBox, Field, FormActions, type FormProps } from '../../components/ui.js';
import { useList, useSubmit } from '../../hooks.js';
import { useSession } from '../../session.js';
import type { CreateScoreConfigInput, ScoreConfig } from '../../types.js';

const FIELDS = { name: 'Name', dataType: 'Type', min: 'Minimum', max: 'Maximum', categories: 'Categories', description: 'Description' };
const TYPES = { numeric: 'Number', boolean: 'True or false', categorical: 'One of some categories' } as const;

/** What a config allows, in words: `0 – 1`, `true or false`, `friendly, neutral, rude`. */
function allowed(config: ScoreConfig): string {
  if (config.dataType === 'boolean') return 'true or false';
  if (config.dataType === 'categorical') return (config.categories ?? []).join(', ');
  if (config.min === null && config.max === null) return 'any number';
  return `${config.min ?? '−∞'} – ${config.max ?? '∞'}`;
}

function ConfigForm({ submitLabel, onSubmit, onCancel }: FormProps<never, CreateScoreConfigInput>) {
  const [name, setName] = useState('');
  const [dataType, setDataType] = useState<keyof typeof TYPES>('numeric');
  const [min, setMin] = useState('');
  const [max, setMax] = useState('');
  const [categories, setCategories] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, submit } = useSubmit(() =>
    onSubmit({
      name: name.trim(),
      dataType,
      ...(dataType === 'numeric' && min.trim() !== '' ? { min: Number(min) } : {}),
      ...(dataType === 'numeric' && max.trim() !== '' ? { max: Number(max) } : {}),
      ...(dataType === 'categorical'
        ? {
            categories: categories
              .split(',')
              .map((c) => c.trim())
              .filter(Boolean),
          }
        : {}),
      ...(description.trim() ? { description: description.trim() } : {}),
    }),
  );
  return (
    <form onSubmit={submit} aria-label="New score config">
      <Field label="Name" hint="Scores of this name are checked against it">
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
      </Field>
      <Field label="Type">
        <select value={dataType} onChange={(e) => setDataType(e.target.value as keyof typeof TYPES)}>
          {Object.entries(TYPES).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      {dataType === 'numeric' && (
        <>
          <Field label="Minimum" hint="Empty: none">
            <input value={min} onChange={(e) => setMin(e.target.value)} inputMode="decimal" />
          </Field>
          <Field label="Maximum" hint="Empty: none">
            <input value={max} onChange={(e) => setMax(e.target.value)} inputMode="decimal" />
          </Field>
        </>
      )}
      {dataType === 'categorical' && (
        <Field label="Categories" hint="Separated by commas">
          <input value={categories} onChange={(e) => setCategories(e.target.value)} required placeholder="friendly, neutral, rude" />
        </Field>
      )}
      <Field label="Description">
        <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1000} />
      </Field>
      <FormActions error={error} fields={FIELDS} busy={busy} disabled={name.trim() === ''} submitLabel={submitLabel} onCancel={onCancel} />
    </form>
  );
}

/**
 * The organization's score configs: what the scores of a name may be. Admins create, archive (the
 * dashboard stops offering it; it still validates) and delete them; everyone sees them.
 */
export function ScoreConfigsPanel() {
  const { can } = useSession();
  const mayWrite = can('quality:admin');
  const list = useList(scoreConfigs.list, {}, 100);
  const [creating, setCreating] = useState(false);
  const deletion = useDeletion(
    (config: ScoreConfig) => scoreConfigs.delete(config.id),
    (config) => list.setItems(removing(config)),
  );
  const [failure, setFailure] = useState<unknown>(null);
  const create = async (body: CreateScoreConfigInput) => list.setItems(adding(await scoreConfigs.create(body)));
  return (
    <>
      {mayWrite && (
        <p>
          <Button variant="primary" onClick={() => setCreating(true)}>
            New score config
          </Button>
        </p>
      )}
      <PagedTable
        list={list}
        empty={{
          one: 'score config',
          many: 'score configs',
          none: mayWrite ? 'Create one to check the scores of a name: a range, true or false, or categories.' : 'Admins and owners create them.',
        }}
        caption="Score configs, newest first"
        columns={['Name', narrow('Type'), 'Allowed', narrow('Description'), ...actionsColumn(mayWrite)]}
        row={(config) => (
          <tr key={config.id}>
            <td>
              <code>{config.name}</code>
              {config.archived && <span className="muted"> (archived)</span>}
            </td>
            <td className="hide-narrow">{TYPES[config.dataType]}</td>
            <td className="cell-wrap">{allowed(config)}</td>
            <td className="cell-wrap hide-narrow">{config.description ?? <span className="muted">—</span>}</td>
            {mayWrite && (
              <RowActions name={`the score config ${config.name}`} onDelete={() => deletion.ask(config)}>
                <Button
                  aria-label={`${config.archived ? 'Restore' : 'Archive'} the score config ${config.name}`}
                  onClick={async () => {
                    try {
                      list.setItems(replacing(await scoreConfigs.update(config.id, { archived: !config.archived })));
                    } catch (error) {
                      setFailure(error);
                    }
                  }}
                >
                  {config.archived ? 'Restore' : 'Archive'}
                </Button>
              </RowActions>
            )}
          </tr>
        )}
      />
      {failure !== null && <ErrorBox error={failure} />}
      <CreateDialog
        title="New score config"
        open={creating}
        onClose={() => setCreating(false)}
        form={ConfigForm}
        submitLabel="Create config"
        onSubmit={create}
      />
      <DeleteModal of={deletion} title="Delete score config" confirmLabel="Delete config">
        {(config) => (
          <p>
            Delete <strong>{config.name}</strong>? Its scores keep their values; new scores of that name are no longer checked. Archive it instead to keep
            checking them.
          </p>
        )}
      </DeleteModal>
    </>
  );
}
