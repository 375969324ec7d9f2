/** "Add to queue" on a run or a trace: one of the project's queues of that target, then a link to it. */
import { useState } from 'react';
import { annotationQueues } from '../../api.js';
import { Button, FormActions } from '../../components/ui.js';
import { DialogButton } from '../../components/modal.js';
import { useList, useSubmit } from '../../hooks.js';
import { Link } from '../../router.js';
import { useSession } from '../../session.js';
import type { AnnotationQueue } from '../../types.js';
import { FormField } from '../prompts/controls.js';
import { queuePath, queuesPath } from './shared.js';

type Target = AnnotationQueue['target'];

/** The button and its dialog, for members and up (nothing for a viewer). */
export function AddToQueue({ projectId, target, targetId }: { projectId: string; target: Target; targetId: string }) {
  const { can } = useSession();
  if (!can('scores:write')) return null;
  return (
    <DialogButton label="Add to queue" title="Add to an annotation queue">
      {(close) => <AddToQueueForm projectId={projectId} target={target} targetId={targetId} onClose={close} />}
    </DialogButton>
  );
}

function AddToQueueForm({ projectId, target, targetId, onClose }: { projectId: string; target: Target; targetId: string; onClose: () => void }) {
  const list = useList(annotationQueues.list(projectId), {}, 100);
  const queues = list.items.filter((queue) => queue.target === target);
  const [queueId, setQueueId] = useState('');
  const [added, setAdded] = useState<{ queue: AnnotationQueue; already: boolean } | null>(null);
  const chosen = queues.find((queue) => queue.id === queueId);
  const noun = target === 'run' ? 'run' : 'trace';
  const { busy, error, submit } = useSubmit(async () => {
    if (!chosen) return;
    const result = await annotationQueues.addItems(projectId, chosen.id, { ids: [targetId] });
    setAdded({ queue: chosen, already: result.added === 0 });
  });

  if (added)
    return (
      <div>
        <p role="status">
          {added.already ? 'Already in' : 'Added to'} <strong>{added.queue.name}</strong>.
        </p>
        <div className="sl-form-actions">
          <Link to={queuePath(projectId, added.queue.id)} className="button primary">
            Open {added.queue.name}
          </Link>
          <Button onClick={onClose}>Done</Button>
        </div>
      </div>
    );

  return (
    <form aria-label={`Add this ${noun} to a queue`} onSubmit={(e) => void submit(e)}>
      {list.loaded && queues.length === 0 && !list.hasMore && !list.error ? (
        <p>
          This project has no queue of {noun}s yet. <Link to={queuesPath(projectId)}>Create one on the Annotation queues page.</Link>
        </p>
      ) : (
        <FormField label="Queue" hint={`The project’s queues of ${noun}s, newest first.`}>
          {(control) => (
            <select {...control} value={queueId} onChange={(e) => setQueueId(e.target.value)} required>
              <option value="">{list.loading ? 'Loading…' : 'Choose…'}</option>
              {queues.map((queue) => (
                <option key={queue.id} value={queue.id}>
                  {queue.name}
                </option>
              ))}
            </select>
          )}
        </FormField>
      )}
      <FormActions
        error={error ?? list.error}
        fields={{ ids: 'This ' + noun, 'ids/*': 'This ' + noun }}
        busy={busy}
        disabled={!chosen}
        submitLabel="Add to queue"
        onCancel={onClose}
      />
    </form>
  );
}
