import { useState } from 'react';
import { ApiError, monitors } from '../api.js';
import { ProjectHeader, ProjectNotFound } from '../components/layout.js';
import { narrow, PagedTable } from '../components/paged.js';
import { Badge, Button, NewButton, StatusBadge, When } from '../components/ui.js';
import { Modal } from '../components/modal.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { Link, navigate } from '../router.js';
import { useSession } from '../session.js';
import type { MonitorWithSecret } from '../types.js';
import { MonitorForm } from './monitors/form.js';
import { FilterChips } from './monitors/filter-chips.js';
import { describeScore, formatThreshold, METRIC_LABELS, type MonitorState } from './monitors/model.js';
import { SecretReveal } from './monitors/secret.js';
import { SelectField } from './prompts/controls.js';
import { FilterForm } from '../components/list-page.js';

const STATE_LABELS: Record<MonitorState, string> = { alerting: 'alerting', ok: 'ok', no_data: 'no data' };
const STATE_CHOICES = Object.keys(STATE_LABELS) as MonitorState[];
const ENABLED_LABELS = { true: 'enabled', false: 'paused' };

/** A project's monitors with their state, newest first; create one with a live preview. */
export function MonitorsPage({ projectId }: { projectId: string }) {
  const { can } = useSession();
  const project = useProject(projectId);
  const [state, setState] = useState('');
  const [enabled, setEnabled] = useState('');
  const list = useList(project.error ? null : monitors.list(projectId), { state: state || undefined, enabled: enabled || undefined });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<MonitorWithSecret | null>(null);
  const filtered = state !== '' || enabled !== '';
  useDocumentTitle('Monitors', project.data?.name);

  if (project.error instanceof ApiError && project.error.status === 404) return <ProjectNotFound />;

  const close = () => {
    setCreating(false);
    setCreated(null);
  };

  return (
    <>
      <ProjectHeader
        project={project}
        projectId={projectId}
        active="monitors"
        subtitle={project.data?.description || 'Monitors watch a metric of this project’s runs and call webhooks when their state changes.'}
        actions={can('monitors:write') && <NewButton label="New monitor" onClick={() => setCreating(true)} />}
      />

      <FilterForm label="Filter monitors" search={false}>
        <SelectField label="State" value={state} onChange={setState} values={STATE_CHOICES} labels={STATE_LABELS} any="any" />
        <SelectField label="Enabled" value={enabled} onChange={setEnabled} values={['true', 'false']} labels={ENABLED_LABELS} any="any" />
      </FilterForm>

      <PagedTable
        list={list}
        empty={{
          one: 'monitor',
          many: 'monitors',
          filtered,
          none: can('monitors:write')
            ? 'Create one with "New monitor": pick a metric, a window and a threshold, and see what it would say before saving.'
            : 'Monitors created by members appear here.',
        }}
        label="Monitors"
        columns={['Name', 'State', 'Metric', narrow('Filter'), narrow('Last evaluated')]}
        row={(m) => (
          <tr key={m.id}>
            <td className="cell-wrap">
              <Link to={`/projects/${encodeURIComponent(projectId)}/monitors/${m.id}`}>{m.name}</Link>
            </td>
            <td>
              <span className="chips">
                <StatusBadge status={m.state} />
                {!m.enabled && <Badge tone="warn">paused</Badge>}
              </span>
            </td>
            <td>
              {METRIC_LABELS[m.metric]}
              {m.score && <span className="muted"> of {describeScore(m.score)}</span>} <span className="muted">/ {m.window}</span>
              <div className="muted" style={{ fontSize: '0.85rem' }}>
                {m.threshold ? `alert ${formatThreshold(m.metric, m.threshold)}` : 'no threshold'}
              </div>
            </td>
            <td className="hide-narrow cell-wrap">
              <FilterChips filter={m.filter} none="all runs" />
            </td>
            <td className="hide-narrow nowrap">
              <When iso={m.lastEvaluatedAt} />
            </td>
          </tr>
        )}
      />

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
              setCreated(await monitors.create(projectId, body));
              list.reload();
            }}
          />
        )}
      </Modal>
    </>
  );
}
