import { useState } from 'react';
import { api, ApiError } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { Badge, Button, Empty, ErrorBox, Loading, Modal, PageHeader, StatusBadge } from '../components/ui.js';
import { fmtDate, fmtRelative } from '../format.js';
import { useAsync, useList } from '../hooks.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { Monitor, MonitorEvent, MonitorMetrics, Project, WebhookAttempt } from '../types.js';
import { DeliveriesPanel, EventsPanel, MetricPanel } from './monitors/activity.js';
import { MonitorForm } from './monitors/form.js';
import { describeFilter, formatThreshold, METRIC_LABELS, WINDOW_LABELS } from './monitors/model.js';
import { SecretReveal } from './monitors/secret.js';
import { ConfirmModal } from './prompts/controls.js';

/** One monitor: its definition and state, the metric over time, its events and webhook deliveries. */
export function MonitorPage({ projectId, monitorId }: { projectId: string; monitorId: string }) {
  const base = `/projects/${encodeURIComponent(projectId)}/monitors/${encodeURIComponent(monitorId)}`;
  const project = useAsync(() => api.get<Project>(`/projects/${encodeURIComponent(projectId)}`), projectId);
  const monitor = useAsync(() => api.get<Monitor>(base), base);
  const listPath = `/projects/${encodeURIComponent(projectId)}/monitors`;
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
      {monitor.data && <MonitorView key={monitor.data.id} projectId={projectId} base={base} monitor={monitor.data} setMonitor={monitor.setData} />}
    </>
  );
}

function MonitorView({ projectId, base, monitor, setMonitor }: { projectId: string; base: string; monitor: Monitor; setMonitor: (m: Monitor) => void }) {
  const { can } = useSession();
  const metrics = useAsync(() => api.get<MonitorMetrics>(`${base}/metrics`), `${base}/metrics`);
  const events = useList<MonitorEvent>(`${base}/events`);
  const deliveries = useList<WebhookAttempt>(`${base}/deliveries`);
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const filter = describeFilter(monitor.filter);

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
    api
      .patch<Monitor>(base, { enabled: !monitor.enabled })
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

      <section className="panel" aria-labelledby="definition-heading">
        <h2 id="definition-heading">Definition</h2>
        <dl className="kv">
          <dt>State</dt>
          <dd className="state-line">
            <StatusBadge status={monitor.state} />
            {monitor.enabled ? <span className="muted">enabled</span> : <span className="muted">paused: no data until resumed</span>}
          </dd>
          <dt>Metric</dt>
          <dd>{METRIC_LABELS[monitor.metric]}</dd>
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
            {filter.length === 0 ? (
              <span className="muted">all runs of the project</span>
            ) : (
              <span className="chips">
                {filter.map((f) => (
                  <span key={f} className="chip">
                    {f}
                  </span>
                ))}
              </span>
            )}
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
      </section>

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
            changed(await api.patch<Monitor>(base, body));
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
            const rotated = await api.post<Monitor & { webhookSecret: string }>(`${base}/rotate-secret`);
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

      <ConfirmModal
        open={deleting}
        title={`Delete ${monitor.name}?`}
        confirmLabel="Delete monitor"
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await api.del(base);
          navigate(`/projects/${encodeURIComponent(projectId)}/monitors`);
        }}
      >
        <p style={{ marginTop: 0 }}>This deletes the monitor with its events and delivery history. Its webhooks are not called again.</p>
      </ConfirmModal>
    </>
  );
}
