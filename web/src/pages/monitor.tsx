import { useState } from 'react';
import { ApiError, monitors } from '../api.js';
import { ConfirmModal, DeleteRecordModal } from '../components/confirm.js';
import { ProjectTabs } from '../components/layout.js';
import { Badge, Button, Empty, ErrorBox, Loading, PageHeader, Panel, StatusBadge } from '../components/ui.js';
import { Modal } from '../components/modal.js';
import { fmtDate, fmtRelative } from '../format.js';
import { useAsync, useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';
import type { Monitor } from '../types.js';
import { DeliveriesPanel, EventsPanel, MetricPanel } from './monitors/activity.js';
import { MonitorForm } from './monitors/form.js';
import { FilterChips } from './monitors/filter-chips.js';
import { describeScore, formatThreshold, METRIC_LABELS, WINDOW_LABELS } from './monitors/model.js';
import { SecretReveal } from './monitors/secret.js';

/** One monitor: its definition and state, the metric over time, its events and webhook deliveries. */
export function MonitorPage({ projectId, monitorId }: { projectId: string; monitorId: string }) {
  const project = useProject(projectId);
  const monitor = useAsync(() => monitors.get(projectId, monitorId), `monitor:${projectId}/${monitorId}`);
  const listPath = `/projects/${encodeURIComponent(projectId)}/monitors`;
  useDocumentTitle(monitor.data?.name ?? 'Monitor', 'Monitors', project.data?.name);
  return (
    <>
      <Link to={listPath} className="back-link">
        ← {project.data ? `${project.data.name} monitors` : 'Monitors'}
      </Link>
      {monitor.error !== undefined &&
        (monitor.error instanceof ApiError && monitor.error.status === 404 ? (
          <Empty title="Monitor not found">
            It may have been deleted. <Link to={listPath}>See the project’s monitors</Link>
          </Empty>
        ) : (
          <ErrorBox error={monitor.error} onRetry={monitor.reload} />
        ))}
      {monitor.loading && !monitor.data && <Loading label="Loading the monitor…" />}
      {monitor.data && <MonitorView key={monitor.data.id} projectId={projectId} monitor={monitor.data} setMonitor={monitor.setData} />}
    </>
  );
}

function MonitorView({ projectId, monitor, setMonitor }: { projectId: string; monitor: Monitor; setMonitor: (m: Monitor) => void }) {
  const { can } = useSession();
  const monitorId = monitor.id;
  const metrics = useAsync(() => monitors.metrics(projectId, monitorId), `monitor-metrics:${projectId}/${monitorId}`);
  const events = useList(monitors.events(projectId, monitorId));
  const deliveries = useList(monitors.deliveries(projectId, monitorId));
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const refresh = () => {
    void metrics.reload();
    events.reload();
    deliveries.reload();
  };
  const changed = (updated: Monitor) => {
    setMonitor(updated);
    refresh();
  };
  const toggle = () => {
    setBusy(true);
    setActionError(null);
    monitors
      .update(projectId, monitorId, { enabled: !monitor.enabled })
      .then(changed)
      .catch((e: unknown) => setActionError(e))
      .finally(() => setBusy(false));
  };

  return (
    <>
      <PageHeader
        title={
          <span className="state-line">
            {monitor.name} <StatusBadge status={monitor.state} />
            {!monitor.enabled && <Badge tone="warn">paused</Badge>}
          </span>
        }
        subtitle={monitor.description || undefined}
        actions={
          <>
            {can('monitors:write') && (
              <>
                <Button onClick={toggle} disabled={busy}>
                  {monitor.enabled ? 'Pause' : 'Resume'}
                </Button>
                <Button onClick={() => setEditing(true)}>Edit</Button>
                <Button
                  onClick={() => {
                    setSecret(null);
                    setRotating(true);
                  }}
                >
                  Rotate secret
                </Button>
              </>
            )}
            {can('monitors:delete') && (
              <Button variant="danger" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            )}
          </>
        }
      />
      <ProjectTabs projectId={projectId} active="monitors" />
      {actionError !== null && <ErrorBox error={actionError} />}

      <Panel heading="definition-heading" title="Definition">
        <dl className="kv">
          <dt>State</dt>
          <dd className="state-line">
            <StatusBadge status={monitor.state} />
            {monitor.enabled ? <span className="muted">enabled</span> : <span className="muted">paused: no data until resumed</span>}
          </dd>
          <dt>Metric</dt>
          <dd>
            {METRIC_LABELS[monitor.metric]}
            {monitor.score && <span className="muted"> of the scores {describeScore(monitor.score)}</span>}
          </dd>
          <dt>Window</dt>
          <dd>{WINDOW_LABELS[monitor.window]}</dd>
          <dt>Threshold</dt>
          <dd>
            {monitor.threshold
              ? `alert while ${METRIC_LABELS[monitor.metric].toLowerCase()} ${formatThreshold(monitor.metric, monitor.threshold)}`
              : 'none (records the metric, never alerts)'}
          </dd>
          <dt>Filter</dt>
          <dd>
            <FilterChips filter={monitor.filter} none={monitor.score ? 'all scores of the name' : 'all runs of the project'} />
          </dd>
          <dt>Webhook URLs</dt>
          <dd>
            {monitor.webhookUrls.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              monitor.webhookUrls.map((url) => (
                <div key={url} className="mono">
                  {url}
                </div>
              ))
            )}
          </dd>
          <dt>Last evaluated</dt>
          <dd title={fmtDate(monitor.lastEvaluatedAt)}>
            {monitor.lastEvaluatedAt ? `${fmtRelative(monitor.lastEvaluatedAt)} (${fmtDate(monitor.lastEvaluatedAt)})` : 'never'}
          </dd>
          <dt>Created</dt>
          <dd>{fmtDate(monitor.createdAt)}</dd>
        </dl>
      </Panel>

      <MetricPanel monitor={monitor} metrics={metrics} onRefresh={refresh} />
      <EventsPanel monitor={monitor} events={events} />
      <DeliveriesPanel monitor={monitor} deliveries={deliveries} />

      <Modal title={`Edit ${monitor.name}`} open={editing} onClose={() => setEditing(false)}>
        <MonitorForm
          projectId={projectId}
          monitor={monitor}
          submitLabel="Save monitor"
          onCancel={() => setEditing(false)}
          onSubmit={async (body) => {
            changed(await monitors.update(projectId, monitorId, body));
            setEditing(false);
          }}
        />
      </Modal>

      {secret === null ? (
        <ConfirmModal
          open={rotating}
          title="Rotate the webhook secret?"
          confirmLabel="Rotate secret"
          onClose={() => setRotating(false)}
          onConfirm={async () => {
            const rotated = await monitors.rotateSecret(projectId, monitorId);
            setSecret(rotated.webhookSecret);
          }}
        >
          <p style={{ marginTop: 0 }}>
            Deliveries from now on are signed with a new secret; receivers verifying with the current one will reject them until they are updated.
          </p>
        </ConfirmModal>
      ) : (
        <Modal
          title="New webhook secret"
          open={rotating}
          onClose={() => {
            setRotating(false);
            setSecret(null);
          }}
        >
          <SecretReveal secret={secret} />
          <div className="form-actions">
            <Button
              variant="primary"
              onClick={() => {
                setRotating(false);
                setSecret(null);
              }}
            >
              Done
            </Button>
          </div>
        </Modal>
      )}

      <DeleteRecordModal
        open={deleting}
        name={monitor.name}
        confirmLabel="Delete monitor"
        onClose={() => setDeleting(false)}
        remove={() => monitors.delete(projectId, monitorId)}
        back={`/projects/${encodeURIComponent(projectId)}/monitors`}
      >
        <p style={{ marginTop: 0 }}>This deletes the monitor with its events and delivery history. Its webhooks are not called again.</p>
      </DeleteRecordModal>
    </>
  );
}
