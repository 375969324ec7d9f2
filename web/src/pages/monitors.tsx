import { useState } from 'react';
import { api, ApiError } from '../api.js';
import { ProjectTabs } from '../components/layout.js';
import { Badge, Button, Empty, ErrorBox, LoadMore, Loading, Modal, PageHeader, StatusBadge } from '../components/ui.js';
import { fmtDate, fmtRelative } from '../format.js';
import { useAsync, useList } from '../hooks.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { Monitor, Project } from '../types.js';
import { MonitorForm } from './monitors/form.js';
import { describeFilter, formatThreshold, METRIC_LABELS } from './monitors/model.js';
import { SecretReveal } from './monitors/secret.js';
import { FormField } from './prompts/controls.js';

/** A project's monitors with their state, newest first; create one with a live preview. */
export function MonitorsPage({ projectId }: { projectId: string }) {
  const { can } = useSession();
  const project = useAsync(() => api.get<Project>(`/projects/${encodeURIComponent(projectId)}`), projectId);
  const [state, setState] = useState('');
  const [enabled, setEnabled] = useState('');
  const base = `/projects/${encodeURIComponent(projectId)}/monitors`;
  const list = useList<Monitor>(project.error ? null : base, { state: state || undefined, enabled: enabled || undefined });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(Monitor & { webhookSecret: string }) | null>(null);
  const filtered = state !== '' || enabled !== '';

  if (project.error instanceof ApiError && project.error.status === 404) {
    return (
      <Empty title="Project not found">
        It may have been deleted, or belong to another organization. <Link to="/projects">See all projects</Link>
      </Empty>
    );
  }

  const close = () => {
    setCreating(false);
    setCreated(null);
  };

  return (
    <>
      <PageHeader
        title={project.data?.name ?? (project.loading ? 'Loading…' : 'Project')}
        subtitle={project.data?.description || 'Monitors watch a metric of this project’s runs and call webhooks when their state changes.'}
        actions={
          can('monitors:write') && (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New monitor
            </Button>
          )
        }
      />
      <ProjectTabs projectId={projectId} active="monitors" />
      {project.error !== undefined && <ErrorBox error={project.error} onRetry={project.reload} />}

      <form className="filters" aria-label="Filter monitors" onSubmit={(e) => e.preventDefault()}>
        <FormField label="State">
          {(control) => (
            <select {...control} value={state} onChange={(e) => setState(e.target.value)}>
              <option value="">any</option>
              <option value="alerting">alerting</option>
              <option value="ok">ok</option>
              <option value="no_data">no data</option>
            </select>
          )}
        </FormField>
        <FormField label="Enabled">
          {(control) => (
            <select {...control} value={enabled} onChange={(e) => setEnabled(e.target.value)}>
              <option value="">any</option>
              <option value="true">enabled</option>
              <option value="false">paused</option>
            </select>
          )}
        </FormField>
      </form>

      {list.error !== null && <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.items.length === 0 && list.loading && <Loading label="Loading monitors…" />}
      {list.items.length === 0 && !list.loading && list.error === null && project.error === undefined && (
        <Empty title={filtered ? 'No monitor matches these filters' : 'No monitors yet'}>
          {filtered
            ? 'Change or clear the filters.'
            : can('monitors:write')
              ? 'Create one with "New monitor": pick a metric, a window and a threshold, and see what it would say before saving.'
              : 'Monitors created by members appear here.'}
        </Empty>
      )}
      {list.items.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Monitors">
            <thead>
              <tr>
                <th>Name</th>
                <th>State</th>
                <th>Metric</th>
                <th className="hide-narrow">Filter</th>
                <th className="hide-narrow">Last evaluated</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((m) => {
                const filter = describeFilter(m.filter);
                return (
                  <tr key={m.id}>
                    <td className="cell-wrap">
                      <Link to={`${base}/${m.id}`}>{m.name}</Link>
                    </td>
                    <td>
                      <span className="chips">
                        <StatusBadge status={m.state} />
                        {!m.enabled && <Badge tone="warn">paused</Badge>}
                      </span>
                    </td>
                    <td>
                      {METRIC_LABELS[m.metric]} <span className="muted">/ {m.window}</span>
                      <div className="muted" style={{ fontSize: '0.85rem' }}>
                        {m.threshold ? `alert ${formatThreshold(m.metric, m.threshold)}` : 'no threshold'}
                      </div>
                    </td>
                    <td className="hide-narrow cell-wrap">
                      {filter.length === 0 ? (
                        <span className="muted">all runs</span>
                      ) : (
                        <span className="chips">
                          {filter.map((f) => (
                            <span key={f} className="chip">
                              {f}
                            </span>
                          ))}
                        </span>
                      )}
                    </td>
                    <td className="hide-narrow nowrap" title={fmtDate(m.lastEvaluatedAt)}>
                      {fmtRelative(m.lastEvaluatedAt)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onLoadMore={list.loadMore} />

      <Modal title="New monitor" open={creating} onClose={close}>
        {created ? (
          <>
            <p style={{ marginTop: 0 }}>
              <strong>{created.name}</strong> is created. It is <StatusBadge status={created.state} /> now and is evaluated in the background from here on.
            </p>
            <SecretReveal secret={created.webhookSecret} />
            <div className="form-actions">
              <Button onClick={close}>Done</Button>
              <Button variant="primary" onClick={() => navigate(`/projects/${encodeURIComponent(projectId)}/monitors/${created.id}`)}>
                Open monitor
              </Button>
            </div>
          </>
        ) : (
          <MonitorForm
            projectId={projectId}
            submitLabel="Create monitor"
            onCancel={close}
            onSubmit={async (body) => {
              const monitor = await api.post<Monitor & { webhookSecret: string }>(base, body);
              setCreated(monitor);
              list.reload();
            }}
          />
        )}
      </Modal>
    </>
  );
}
