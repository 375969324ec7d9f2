import { useState } from 'react';
import { ApiError, evaluators } from '../api.js';
import { DeleteModal, useDeletion } from '../components/list-page.js';
import { ProjectHeader, ProjectNotFound } from '../components/layout.js';
import { narrow, num, PagedTable } from '../components/paged.js';
import { CreateDialog, EditDialog } from '../components/forms.js';
import { Badge, Button, NewButton } from '../components/ui.js';
import { useDocumentTitle, useList, useProject } from '../hooks.js';
import { useSession } from '../session.js';
import type { CreateEvaluatorRuleInput, EvaluatorRule } from '../types.js';
import { RuleForm, TYPES } from './evaluators/rule-form.js';
import { FilterChips } from './monitors/filter-chips.js';
import '../pages/prompts/controls.css';

/** A project's evaluator rules with their job counts; admins and owners create, edit and delete them. */
export function EvaluatorsPage({ projectId }: { projectId: string }) {
  const { can } = useSession();
  const mayAdmin = can('quality:admin');
  const project = useProject(projectId);
  const list = useList(project.error ? null : evaluators.list(projectId), {});
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<EvaluatorRule | null>(null);
  const deletion = useDeletion(
    (rule: EvaluatorRule) => evaluators.delete(projectId, rule.id),
    () => list.reload(),
  );
  useDocumentTitle('Evaluators', project.data?.name);
  const create = async (body: CreateEvaluatorRuleInput) => {
    await evaluators.create(projectId, body);
    list.reload();
  };
  const save = async (body: CreateEvaluatorRuleInput, rule: EvaluatorRule) => {
    await evaluators.update(projectId, rule.id, body);
    list.reload();
  };

  if (project.error instanceof ApiError && project.error.status === 404) return <ProjectNotFound />;

  return (
    <>
      <ProjectHeader
        project={project}
        projectId={projectId}
        active="evaluators"
        subtitle="Evaluator rules score this project’s new runs in the background: a sample of the runs a filter matches, judged by a built-in check or an LLM judge."
        actions={mayAdmin && <NewButton label="New rule" onClick={() => setCreating(true)} />}
      />

      <PagedTable
        list={list}
        empty={{
          one: 'evaluator rule',
          many: 'evaluator rules',
          none: mayAdmin ? 'Create one with “New rule”: new runs that match are scored from then on.' : 'Rules created by admins appear here.',
        }}
        label="Evaluator rules"
        columns={['Name', 'Evaluator', narrow('Filter'), num('Rate'), num('Pending'), num('Done'), num('Failed'), num('Skipped'), ...(mayAdmin ? [''] : [])]}
        row={(r) => (
          <tr key={r.id}>
            <td className="cell-wrap">
              {r.name}
              <div className="muted" style={{ fontSize: '0.85rem' }}>
                score “{r.scoreName}” {!r.enabled && <Badge tone="warn">paused</Badge>}
              </div>
            </td>
            <td>
              {TYPES[r.evaluator.type]?.label ?? r.evaluator.type}
              {r.lastError && (
                <div className="muted" style={{ fontSize: '0.85rem' }} title={r.lastError}>
                  last error: {r.lastError.slice(0, 80)}
                </div>
              )}
            </td>
            <td className="hide-narrow cell-wrap">
              <FilterChips filter={r.filter} none="all runs" />
            </td>
            <td className="num">{Math.round(r.sampleRate * 1000) / 10}%</td>
            <td className="num">{r.counts.pending}</td>
            <td className="num">{r.counts.done}</td>
            <td className="num">{r.counts.failed}</td>
            <td className="num">{r.counts.skipped}</td>
            {mayAdmin && (
              <td className="nowrap">
                <Button variant="ghost" onClick={() => setEditing(r)} aria-label={`Edit ${r.name}`}>
                  Edit
                </Button>
                <Button variant="ghost" onClick={() => deletion.ask(r)} aria-label={`Delete ${r.name}`}>
                  Delete
                </Button>
              </td>
            )}
          </tr>
        )}
      />

      <CreateDialog title="New evaluator rule" open={creating} onClose={() => setCreating(false)} form={RuleForm} submitLabel="Create rule" onSubmit={create} />
      <EditDialog title="Edit evaluator rule" item={editing} onClose={() => setEditing(null)} form={RuleForm} submitLabel="Save rule" onSubmit={save} />
      <DeleteModal of={deletion} title="Delete evaluator rule" confirmLabel="Delete rule">
        {(rule) => (
          <p>
            Delete <strong>{rule.name}</strong> and its queued jobs? The scores it gave stay.
          </p>
        )}
      </DeleteModal>
    </>
  );
}
