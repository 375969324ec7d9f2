import { useState } from 'react';
import { annotationQueues } from '../api.js';
import { narrow, PagedTable } from '../components/paged.js';
import { Badge, Button, ErrorBox, Fact, PageHeader, Panel, When } from '../components/ui.js';
import { useAsync, useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import { DeleteQueueModal, TARGET_LABELS, useQueueDeletion } from './annotation-queues.js';
import { AddItemsForm } from './annotations/add-items.js';
import { QueueProgress, queuesPath, reviewPath, targetPath, useQueueConfigs } from './annotations/shared.js';
import { SelectField } from './prompts/controls.js';
import { FilterForm } from '../components/list-page.js';
import { Breadcrumbs, Pending } from './runs/shared.js';

const STATUS_TONE = { pending: 'neutral', completed: 'ok', skipped: 'warn' } as const;
const STATUSES = ['pending', 'completed', 'skipped'] as const;

/** One queue: its progress, its score configs, adding runs or traces to it, and its items; "Review" opens the review screen. */
export function AnnotationQueuePage({ projectId, queueId }: { projectId: string; queueId: string }) {
  const { me, can } = useSession();
  const project = useProject(projectId);
  const state = useAsync(() => annotationQueues.get(projectId, queueId), `annotation-queue:${projectId}/${queueId}`);
  const queue = state.data?.id === queueId ? state.data : undefined;
  const configs = useQueueConfigs(queue);
  const [status, setStatus] = useState('');
  const items = useList(queue ? annotationQueues.items(projectId, queueId) : null, { status: status || undefined });
  const deletion = useQueueDeletion(projectId, () => navigate(queuesPath(projectId)));
  useDocumentTitle(queue?.name ?? 'Annotation queue', project.data?.name);
  const crumbs = [
    { label: 'Projects', to: '/projects' },
    { label: project.data?.name ?? 'Project', to: `/projects/${projectId}/traces` },
    { label: 'Annotation queues', to: queuesPath(projectId) },
    { label: queue?.name ?? queueId },
  ];

  if (!queue) return <Pending crumbs={crumbs} state={state} label="Loading queue…" />;
  const refresh = () => {
    void state.reload();
    items.reload();
  };
  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title={queue.name}
        subtitle={queue.description || `${TARGET_LABELS[queue.target]} for people to score.`}
        actions={
          <>
            {can('scores:write') && (
              <Button variant="primary" onClick={() => navigate(reviewPath(projectId, queue.id))}>
                Review
              </Button>
            )}
            {can('quality:admin') && (
              <Button variant="danger" onClick={() => deletion.ask(queue)}>
                Delete
              </Button>
            )}
          </>
        }
      />
      <QueueProgress counts={queue.counts} label={`Progress of ${queue.name}`} />
      <dl className="sl-ds-facts" style={{ marginTop: 12 }}>
        <Fact label="Items">{TARGET_LABELS[queue.target]}</Fact>
        <Fact label="Scores asked for">
          {configs.error ? (
            <span className="muted">could not be read</span>
          ) : configs.data && configs.data.length > 0 ? (
            configs.data.map((c) => c.name).join(', ')
          ) : (
            <span className="muted">{configs.loading ? '…' : 'none'}</span>
          )}
        </Fact>
      </dl>
      {configs.error !== undefined && <ErrorBox error={configs.error} onRetry={configs.reload} />}

      {can('scores:write') && (
        <Panel heading="add-items-title" title={`Add ${queue.target === 'run' ? 'runs' : 'traces'}`}>
          <AddItemsForm projectId={projectId} queue={queue} onAdded={refresh} />
        </Panel>
      )}

      <Panel heading="items-title" title="Items">
        <FilterForm label="Filter items" search={false}>
          <SelectField label="Status" value={status} onChange={setStatus} values={STATUSES} any="Any" />
        </FilterForm>
        <PagedTable
          list={items}
          empty={{ one: 'item', many: 'items', filtered: status !== '', none: `Add ${queue.target === 'run' ? 'runs' : 'traces'} above.` }}
          caption="Items of the queue, newest first"
          columns={[TARGET_LABELS[queue.target].slice(0, -1), 'Status', narrow('Reviewer'), narrow('Done')]}
          row={(item) => (
            <tr key={item.id}>
              <td className="cell-wrap">
                <Link to={targetPath(projectId, item)}>{item.targetId}</Link>
              </td>
              <td>
                <Badge tone={STATUS_TONE[item.status]}>{item.status}</Badge>
                {item.status === 'pending' && item.leaseUntil !== null && Date.parse(item.leaseUntil) > Date.now() && (
                  <span className="muted"> · in progress</span>
                )}
              </td>
              <td className="hide-narrow">
                {(item.completedBy ?? item.reviewerId) ? (
                  (item.completedBy ?? item.reviewerId) === me.user.id ? (
                    'you'
                  ) : (
                    'a teammate'
                  )
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="hide-narrow sl-nowrap">
                <When iso={item.completedAt} fallback="—" />
              </td>
            </tr>
          )}
        />
      </Panel>

      <DeleteQueueModal of={deletion} />
    </>
  );
}
