import { useState } from 'react';
import { ApiError, annotationQueues, scoreConfigs } from '../api.js';
import { ProjectHeader, ProjectNotFound } from '../components/layout.js';
import { actionsColumn, DeleteModal, Notice, useDeletion, type Deletion, removing, RowActions } from '../components/list-page.js';
import { narrow, PagedTable } from '../components/paged.js';
import { CreateDialog } from '../components/forms.js';
import { Button, ErrorBox, FormActions, LoadMore, NewButton, When, type FormProps } from '../components/ui.js';
import { useDocumentTitle, useList, useProject, useSubmit } from '../hooks.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { AnnotationQueue, CreateAnnotationQueueInput } from '../types.js';
import { QueueProgress, queuePath, reviewPath } from './annotations/shared.js';
import { Checkbox, FormField, TextAreaField } from './prompts/controls.js';

const FIELDS = { name: 'Name', description: 'Description', target: 'Items', scoreConfigIds: 'Score configs', 'scoreConfigIds/*': 'Score config {n}' };
export const TARGET_LABELS = { run: 'Runs', trace: 'Traces' } as const;

/** A new queue: its name, description, what its items are (never changes) and the score configs asked for. */
function QueueForm({ submitLabel, onSubmit, onCancel }: FormProps<never, CreateAnnotationQueueInput>) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [target, setTarget] = useState<'run' | 'trace'>('run');
  const [chosen, setChosen] = useState<string[]>([]);
  const configs = useList(scoreConfigs.list, { archived: false }, 100);
  const { busy, error, submit } = useSubmit(() =>
    onSubmit({ name: name.trim(), target, scoreConfigIds: chosen, ...(description.trim() ? { description: description.trim() } : {}) }),
  );
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="New annotation queue">
      <FormField label="Name" hint="Unique in the project.">
        {(control) => <input {...control} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoFocus autoComplete="off" />}
      </FormField>
      <TextAreaField label="Description" hint="What reviewers should look for." value={description} onChange={setDescription} />
      <FormField label="Items" hint="What reviewers score: a run, or a whole trace (shown by its root run). It never changes.">
        {(control) => (
          <select {...control} value={target} onChange={(e) => setTarget(e.target.value as 'run' | 'trace')}>
            <option value="run">Runs</option>
            <option value="trace">Traces</option>
          </select>
        )}
      </FormField>
      <fieldset className="form-section">
        <legend>Score configs</legend>
        <p className="field-hint">What reviewers are asked for, in this order. Admins define configs in Settings.</p>
        {configs.error !== null && <ErrorBox error={configs.error} onRetry={configs.reload} />}
        {configs.loaded && configs.items.length === 0 && configs.error === null && (
          <p className="muted">No score configs yet: an admin creates them in Settings.</p>
        )}
        {configs.items.map((config) => (
          <Checkbox
            key={config.id}
            label={config.name}
            checked={chosen.includes(config.id)}
            onChange={(checked) => setChosen((ids) => (checked ? [...ids, config.id] : ids.filter((id) => id !== config.id)))}
            hint={config.description ?? undefined}
          />
        ))}
        <LoadMore hasMore={configs.hasMore} loading={configs.loading} onLoadMore={configs.loadMore} />
      </fieldset>
      <FormActions error={error} fields={FIELDS} busy={busy} disabled={name.trim() === ''} submitLabel={submitLabel} onCancel={onCancel} />
    </form>
  );
}

/** Deleting a queue of the project (for admins and owners), then `done`. */
export const useQueueDeletion = (projectId: string, done: (queue: AnnotationQueue) => void) =>
  useDeletion((queue: AnnotationQueue) => annotationQueues.delete(projectId, queue.id), done);

/** "Delete queue?": its items go, the scores given in it stay. */
export function DeleteQueueModal({ of }: { of: Deletion<AnnotationQueue> }) {
  return (
    <DeleteModal of={of} title="Delete annotation queue" confirmLabel="Delete queue">
      {(shown) => (
        <p>
          Delete <strong>{shown.name}</strong> with its items? The scores given in it stay. This cannot be undone.
        </p>
      )}
    </DeleteModal>
  );
}

/**
 * A project's annotation queues, newest first, each with its progress: members and up create them (a new
 * one opens on its page, to add its first items) and review them; admins and owners delete them.
 */
export function AnnotationQueuesPage({ projectId }: { projectId: string }) {
  const { can } = useSession();
  const project = useProject(projectId);
  const mayWrite = can('scores:write');
  const mayDelete = can('quality:admin');
  const list = useList(project.error ? null : annotationQueues.list(projectId));
  const [creating, setCreating] = useState(false);
  const deletion = useQueueDeletion(projectId, (deleted) => {
    list.setItems(removing(deleted));
    setNotice(`Queue ${deleted.name} deleted.`);
  });
  const [notice, setNotice] = useState('');
  useDocumentTitle('Annotation queues', project.data?.name);

  async function create(body: CreateAnnotationQueueInput) {
    const queue = await annotationQueues.create(projectId, body);
    navigate(queuePath(projectId, queue.id));
  }

  if (project.error instanceof ApiError && project.error.status === 404) return <ProjectNotFound />;

  return (
    <>
      <ProjectHeader
        project={project}
        projectId={projectId}
        active="annotation-queues"
        subtitle="Annotation queues hold runs or traces for people to score, one claimed item at a time."
        actions={mayWrite && <NewButton label="New queue" onClick={() => setCreating(true)} />}
      />
      <Notice text={notice} />

      <PagedTable
        list={list}
        empty={{
          one: 'queue',
          many: 'annotation queues',
          none: mayWrite ? 'Create one with “New queue”, then add runs or traces to it.' : 'Members of your organization create them; they appear here.',
        }}
        caption="Annotation queues, newest first"
        columns={['Name', narrow('Items'), 'Progress', narrow('Created'), ...actionsColumn(mayWrite || mayDelete, 'sl-actions-col')]}
        row={(queue) => (
          <tr key={queue.id}>
            <td className="cell-wrap">
              <Link to={queuePath(projectId, queue.id)} className="sl-strong-link">
                {queue.name}
              </Link>
              {queue.description && <div className="muted sl-clamp">{queue.description}</div>}
            </td>
            <td className="hide-narrow">{TARGET_LABELS[queue.target]}</td>
            <td>
              <QueueProgress counts={queue.counts} label={`Progress of ${queue.name}`} compact />
            </td>
            <td className="hide-narrow sl-nowrap">
              <When iso={queue.createdAt} />
            </td>
            {(mayWrite || mayDelete) && (
              <RowActions name={queue.name} onDelete={mayDelete ? () => deletion.ask(queue) : undefined}>
                {mayWrite && queue.counts.pending > 0 && (
                  <Button onClick={() => navigate(reviewPath(projectId, queue.id))} aria-label={`Review ${queue.name}`}>
                    Review
                  </Button>
                )}
              </RowActions>
            )}
          </tr>
        )}
      />

      <CreateDialog
        title="New annotation queue"
        open={creating}
        onClose={() => setCreating(false)}
        form={QueueForm}
        submitLabel="Create queue"
        onSubmit={create}
      />

      <DeleteQueueModal of={deletion} />
    </>
  );
}
