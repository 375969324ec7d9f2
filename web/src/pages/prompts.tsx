import { useState } from 'react';
import { prompts } from '../api.js';
import { useDocumentTitle, useList } from '../hooks.js';
import { FilterForm, SearchField } from '../components/list-page.js';
import { narrow, num, PagedTable } from '../components/paged.js';
import { Badge, NewButton, PageHeader, When } from '../components/ui.js';
import { Modal } from '../components/modal.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { Prompt } from '../types.js';
import { FormField, useDebounced } from './prompts/controls.js';
import { emptyDraft } from './prompts/template.js';
import { VersionForm } from './prompts/version-fields.js';

/** Prompts of the organization, newest first, filtered by name and label. */
export function PromptsPage() {
  const { can } = useSession();
  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const [creating, setCreating] = useState(false);
  const nameFilter = useDebounced(name.trim(), 300);
  const labelFilter = useDebounced(label.trim(), 300);
  const query = { name: nameFilter || undefined, label: labelFilter || undefined };
  const list = useList(prompts.list, query);
  const filtered = query.name !== undefined || query.label !== undefined;
  useDocumentTitle('Prompts');

  return (
    <>
      <PageHeader
        title="Prompts"
        subtitle="Versioned templates shared by the organization. Labels such as production point at a version."
        actions={can('prompts:write') && <NewButton label="New prompt" onClick={() => setCreating(true)} />}
      />
      <FilterForm label="Filter prompts">
        <SearchField label="Search prompts" value={name} onChange={setName} placeholder="part of a name" />
        <SearchField label="With label" value={label} onChange={setLabel} placeholder="e.g. production" />
      </FilterForm>

      <PagedTable
        list={list}
        empty={{
          one: 'prompt',
          many: 'prompts',
          filtered,
          none: can('prompts:write') ? 'Create one with "New prompt", or through the API (POST /v1/prompts).' : 'Prompts created through the API appear here.',
        }}
        label="Prompts"
        columns={['Name', narrow('Description'), num('Latest'), 'Labels', narrow('Updated')]}
        row={(prompt) => (
          <tr key={prompt.id}>
            <td className="cell-wrap">
              <Link to={`/prompts/${encodeURIComponent(prompt.name)}`}>{prompt.name}</Link>
            </td>
            <td className="hide-narrow cell-wrap muted">{prompt.description || '—'}</td>
            <td className="num">v{prompt.latestVersion}</td>
            <td>
              <LabelBadges labels={prompt.labels} />
            </td>
            <td className="hide-narrow nowrap">
              <When iso={prompt.updatedAt} />
            </td>
          </tr>
        )}
      />

      <Modal title="New prompt" open={creating} onClose={() => setCreating(false)}>
        <NewPromptForm onCancel={() => setCreating(false)} />
      </Modal>
    </>
  );
}

/** `production → v3` badges; none is a dash. */
export function LabelBadges({ labels }: { labels: Prompt['labels'] }) {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <span className="chips">
      {entries.map(([label, version]) => (
        <Badge key={label} tone="info">
          {label} → v{version}
        </Badge>
      ))}
    </span>
  );
}

function NewPromptForm({ onCancel }: { onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  return (
    <VersionForm
      initial={emptyDraft()}
      submitLabel="Create prompt"
      onCancel={onCancel}
      create={async (version) => {
        const prompt = await prompts.create({ name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}), ...version });
        navigate(`/prompts/${encodeURIComponent(prompt.name)}`);
      }}
    >
      <FormField label="Name" hint="A slug, unique in the organization: lowercase letters, digits, '.', '_' and '-' (e.g. support-reply).">
        {(control) => (
          <input
            {...control}
            required
            autoFocus
            maxLength={100}
            autoCapitalize="off"
            autoComplete="off"
            spellCheck={false}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </FormField>
      <FormField label="Description">
        {(control) => <input {...control} maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </FormField>
    </VersionForm>
  );
}
