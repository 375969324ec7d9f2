import { useState, type FormEvent } from 'react';
import { api } from '../api.js';
import { useList } from '../hooks.js';
import { Badge, Button, Empty, ErrorBox, LoadMore, Loading, Modal, PageHeader } from '../components/ui.js';
import { fmtDate, fmtRelative } from '../format.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { Prompt } from '../types.js';
import { FormField, InvalidBox, useDebounced } from './prompts/controls.js';
import { emptyDraft, versionBody, type VersionDraft } from './prompts/template.js';
import { VersionFields } from './prompts/version-fields.js';

/** Prompts of the organization, newest first, filtered by name and label. */
export function PromptsPage() {
  const { can } = useSession();
  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const [creating, setCreating] = useState(false);
  const nameFilter = useDebounced(name.trim(), 300);
  const labelFilter = useDebounced(label.trim(), 300);
  const query = { name: nameFilter || undefined, label: labelFilter || undefined };
  const list = useList<Prompt>('/prompts', query);
  const filtered = query.name !== undefined || query.label !== undefined;

  return (
    <>
      <PageHeader
        title="Prompts"
        subtitle="Versioned templates shared by the organization. Labels such as production point at a version."
        actions={
          can('prompts:write') && (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New prompt
            </Button>
          )
        }
      />
      <form className="filters" role="search" aria-label="Filter prompts" onSubmit={(e) => e.preventDefault()}>
        <FormField label="Search prompts">
          {(control) => <input {...control} type="search" value={name} placeholder="part of a name" onChange={(e) => setName(e.target.value)} />}
        </FormField>
        <FormField label="With label">
          {(control) => <input {...control} type="search" value={label} placeholder="e.g. production" onChange={(e) => setLabel(e.target.value)} />}
        </FormField>
      </form>

      {list.error !== null && <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.items.length === 0 && list.loading && <Loading label="Loading prompts…" />}
      {list.items.length === 0 && !list.loading && list.error === null && (
        <Empty title={filtered ? 'No prompt matches these filters' : 'No prompts yet'}>
          {filtered
            ? 'Change or clear the filters.'
            : can('prompts:write')
              ? 'Create one with "New prompt", or through the API (POST /v1/prompts).'
              : 'Prompts created through the API appear here.'}
        </Empty>
      )}
      {list.items.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Prompts">
            <thead>
              <tr>
                <th>Name</th>
                <th className="hide-narrow">Description</th>
                <th className="num">Latest</th>
                <th>Labels</th>
                <th className="hide-narrow">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((prompt) => (
                <tr key={prompt.id}>
                  <td className="cell-wrap">
                    <Link to={`/prompts/${encodeURIComponent(prompt.name)}`}>{prompt.name}</Link>
                  </td>
                  <td className="hide-narrow cell-wrap muted">{prompt.description || '—'}</td>
                  <td className="num">v{prompt.latestVersion}</td>
                  <td>
                    <LabelBadges labels={prompt.labels} />
                  </td>
                  <td className="hide-narrow nowrap" title={fmtDate(prompt.updatedAt)}>
                    {fmtRelative(prompt.updatedAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onLoadMore={list.loadMore} />

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
  const [draft, setDraft] = useState<VersionDraft>(emptyDraft);
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
    const payload = { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}), ...body.value };
    api
      .post<Prompt>('/prompts', payload)
      .then((prompt) => navigate(`/prompts/${encodeURIComponent(prompt.name)}`))
      .catch((e: unknown) => {
        setError(e);
        setBusy(false);
      });
  };

  return (
    <form onSubmit={submit} noValidate>
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
      <VersionFields
        draft={draft}
        onChange={(next) => {
          setDraft(next);
          setInvalid(null);
        }}
      />
      {invalid && <InvalidBox {...invalid} />}
      {error !== null && <ErrorBox error={error} />}
      <div className="form-actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create prompt'}
        </Button>
      </div>
    </form>
  );
}
