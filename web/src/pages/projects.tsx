import { useEffect, useState } from 'react';
import { projects } from '../api.js';
import { actionsColumn, adding, DeleteModal, useDeletion, FilterForm, Notice, removing, replacing, RowActions, SearchField } from '../components/list-page.js';
import { narrow, PagedTable } from '../components/paged.js';
import { CreateDialog, EditDialog } from '../components/forms.js';
import { Button, Empty, Field, FormActions, NewButton, PageHeader, When, type FormProps } from '../components/ui.js';
import { useDocumentTitle, useList, useSubmit } from '../hooks.js';
import { Link, useLocation } from '../router.js';
import { useSession } from '../session.js';
import type { CreateProjectInput, Project, UpdateProjectInput } from '../types.js';
import { setQuery } from './runs/shared.js';
import './runs/runs.css';

/** The organization's projects: newest first, filtered by a substring of the name (kept in the URL). */
export function ProjectsPage() {
  const { can } = useSession();
  const { search } = useLocation();
  const filter = search.get('name') ?? '';
  const [draft, setDraft] = useState(filter);
  const list = useList(projects.list, { name: filter || undefined });
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<Project | null>(null);
  const deletion = useDeletion(
    (project: Project) => projects.delete(project.id),
    (project) => {
      list.setItems(removing(project));
      setNotice(`Project ${project.name} deleted.`);
    },
  );
  const [notice, setNotice] = useState('');
  useDocumentTitle('Projects');

  // Keeps the box in step with the URL (back/forward).
  useEffect(() => setDraft(filter), [filter]);

  // Typing filters after a short pause; Enter filters at once.
  useEffect(() => {
    if (draft.trim() === filter) return;
    const timer = setTimeout(() => applyFilter(draft), 350);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [draft]);

  function applyFilter(value: string) {
    const name = value.trim();
    if (name === filter) return;
    setQuery('/projects', new URLSearchParams(name ? { name } : {}), { replace: true });
  }

  const mayWrite = can('projects:write');
  const mayDelete = can('projects:delete');
  const matches = (p: Project) => !filter || p.name.toLowerCase().includes(filter.toLowerCase());

  async function create(body: Required<CreateProjectInput>) {
    const project = await projects.create(body);
    if (matches(project)) list.setItems(adding(project));
    setNotice(`Project ${project.name} created.`);
  }

  async function rename(body: Required<CreateProjectInput>, project: Project) {
    const changes: UpdateProjectInput = {};
    if (body.name !== project.name) changes.name = body.name;
    if (body.description !== project.description) changes.description = body.description;
    if (Object.keys(changes).length === 0) return;
    const updated = await projects.update(project.id, changes);
    list.setItems(replacing(updated));
    setNotice(`Project renamed to ${updated.name}.`);
  }

  return (
    <>
      <PageHeader
        title="Projects"
        subtitle="Each project collects the runs and monitors of one application."
        actions={mayWrite ? <NewButton label="New project" onClick={() => setCreating(true)} /> : undefined}
      />

      <FilterForm onSubmit={() => applyFilter(draft)}>
        <SearchField label="Search projects" value={draft} onChange={setDraft} placeholder="Part of a name" maxLength={100} autoComplete="off" />
        <Button type="submit">Search</Button>
        {filter && (
          <Button variant="ghost" onClick={() => applyFilter('')}>
            Clear
          </Button>
        )}
      </FilterForm>

      <Notice text={notice} />

      <PagedTable
        list={list}
        loadingLabel="Loading projects…"
        empty={
          filter ? (
            <Empty title={`No project matches “${filter}”`}>
              <Button variant="ghost" onClick={() => applyFilter('')}>
                Show all projects
              </Button>
            </Empty>
          ) : (
            <Empty title="No projects yet">
              <p>A project holds the runs your application sends to Sightline.</p>
              {/* One "New project" button on the page (the header's), so it is unambiguous. */}
              <p>{mayWrite ? 'Create the first one with “New project” above.' : 'Ask a member of your organization to create one.'}</p>
            </Empty>
          )
        }
        caption="Projects, newest first"
        columns={['Name', narrow('Created'), ...actionsColumn(mayWrite || mayDelete, 'sl-actions-col')]}
        row={(project) => (
          <tr key={project.id}>
            <td>
              <Link to={`/projects/${project.id}/traces`} className="sl-strong-link">
                {project.name}
              </Link>
              {project.description && <div className="muted sl-clamp">{project.description}</div>}
            </td>
            <td className="hide-narrow sl-nowrap">
              <When iso={project.createdAt} />
            </td>
            {(mayWrite || mayDelete) && (
              <RowActions name={project.name} onDelete={mayDelete ? () => deletion.ask(project) : undefined}>
                {mayWrite && (
                  <Button aria-label={`Rename ${project.name}`} onClick={() => setRenaming(project)}>
                    Rename
                  </Button>
                )}
              </RowActions>
            )}
          </tr>
        )}
      />

      <CreateDialog title="New project" open={creating} onClose={() => setCreating(false)} form={ProjectForm} submitLabel="Create project" onSubmit={create} />

      <EditDialog
        title={renaming ? `Rename ${renaming.name}` : 'Rename project'}
        item={renaming}
        onClose={() => setRenaming(null)}
        form={ProjectForm}
        submitLabel="Save"
        onSubmit={rename}
      />

      <DeleteModal of={deletion} title="Delete project" confirmLabel="Delete project">
        {(project) => (
          <p>
            Delete <strong>{project.name}</strong> with all its runs and monitors? This cannot be undone.
          </p>
        )}
      </DeleteModal>
    </>
  );
}

function ProjectForm({ initial, submitLabel, onSubmit, onCancel }: FormProps<Project, Required<CreateProjectInput>>) {
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const { busy, error, submit } = useSubmit(() => onSubmit({ name: name.trim(), description: description.trim() }));

  return (
    <form onSubmit={(e) => void submit(e)}>
      <p className="muted" style={{ marginTop: 0 }}>
        Names are unique in your organization; the description is optional.
      </p>
      <Field label="Name">
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} autoFocus autoComplete="off" />
      </Field>
      <Field label="Description">
        <textarea
          name="description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={2000}
          rows={3}
          className="sl-plain-textarea"
        />
      </Field>
      <FormActions
        error={error}
        fields={{ name: 'Name', description: 'Description' }}
        busy={busy}
        disabled={name.trim() === ''}
        submitLabel={submitLabel}
        onCancel={onCancel}
      />
    </form>
  );
}
