import { useEffect, useId, useState } from 'react';
import { ApiError, evaluators, modelConnections, prompts } from '../api.js';
import { ConfirmModal } from '../components/confirm.js';
import { ProjectTabs } from '../components/layout.js';
import { EmptyList, narrow, num, PagedTable } from '../components/paged.js';
import { Badge, Button, Empty, ErrorBox, FormActions, Modal, PageHeader } from '../components/ui.js';
import { useAsync, useDocumentTitle, useList, useProject, useSubmit } from '../hooks.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';
import type { CreateEvaluatorRuleInput, Evaluator, EvaluatorRule, ModelConnection } from '../types.js';
import { jsonText, parseJson } from './datasets/json.js';
import { FilterChips } from './monitors/filter-chips.js';
import { Checkbox, FormField } from './prompts/controls.js';
import '../pages/prompts/controls.css';

type EvaluatorType = Evaluator['type'];

/** Each evaluator type: its label, and the fields a new rule of it starts with (edited as JSON). */
const TYPES: Record<EvaluatorType, { label: string; example: Record<string, unknown> }> = {
  json_valid: { label: 'JSON validity', example: {} },
  json_schema: { label: 'JSON schema', example: { schema: { type: 'object', required: ['answer'] } } },
  regex: { label: 'Regex', example: { pattern: '^\\d+$', flags: 'i', mode: 'match' } },
  contains: { label: 'Contains', example: { values: ['refund'], mode: 'any', caseSensitive: false } },
  exact_match: { label: 'Exact match', example: { expectedKey: 'expected' } },
  fuzzy_match: { label: 'Fuzzy match', example: { expectedKey: 'expected', threshold: 0.8 } },
  length: { label: 'Length', example: { min: 1, max: 2000 } },
  latency: { label: 'Latency', example: { maxMs: 5000 } },
  // Its connection and prompt are picked from the organization's (JudgePickers); the ids look like `mcn_…`.
  llm_judge: { label: 'LLM judge', example: { connectionId: '', promptName: '' } },
};
const TYPE_VALUES = Object.keys(TYPES) as EvaluatorType[];
const RULE_FIELDS = { name: 'Name', scoreName: 'Score name', sampleRate: 'Sample rate', filter: 'Filter', evaluator: 'Evaluator', enabled: 'Enabled' };

/** The most model connections and prompts offered in the pickers (the first page of each). */
/** Pages of 100 model connections read for the picker. */
const CONNECTION_PAGES = 10;
/** Prompt names suggested as the judge prompt is typed. */
const PROMPT_SUGGESTIONS = 20;

/** The settings' JSON with one field set (or the text unchanged when it is not a JSON object). */
function withSetting(settings: string, key: string, value: string): string {
  const parsed = parseJson(settings, 'Settings', { object: true });
  const current = parsed.ok ? ((parsed.value ?? {}) as Record<string, unknown>) : null;
  return current ? jsonText({ ...current, [key]: value }) : settings;
}

/** A field of the settings' JSON as text ('' when absent or not parsed). */
function settingOf(settings: string, key: string): string {
  const parsed = parseJson(settings, 'Settings', { object: true });
  const value = parsed.ok ? (parsed.value as Record<string, unknown> | undefined)?.[key] : undefined;
  return typeof value === 'string' ? value : '';
}

/** Every model connection of the organization (pages of 100, at most 1,000: an organization has a few). */
async function allConnections(): Promise<ModelConnection[]> {
  const all: ModelConnection[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < CONNECTION_PAGES; page++) {
    const result = await modelConnections.list.page({ limit: 100, cursor });
    all.push(...result.items);
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return all;
}

/**
 * The prompts whose names contain what is typed (the prompts list's `name` filter, the first
 * PROMPT_SUGGESTIONS by name), asked again a moment after typing stops; `exists`: whether one is named so exactly.
 */
function usePromptSuggestions(typed: string): { names: string[]; exists: boolean | null } {
  const [found, setFound] = useState<{ for: string; names: string[] } | null>(null);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      prompts.list
        .page({ name: typed.trim() || undefined, limit: PROMPT_SUGGESTIONS })
        .then((page) => live && setFound({ for: typed, names: page.items.map((p) => p.name) }))
        .catch(() => live && setFound({ for: typed, names: [] }));
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [typed]);
  const names = found?.names ?? [];
  const settled = found?.for === typed;
  return { names, exists: typed.trim() === '' || !settled ? null : names.includes(typed.trim()) };
}

/**
 * An LLM judge's connection and prompt: the connection picked from the organization's model connections
 * (Settings › Model connections), the prompt typed with suggestions from the prompt store (any number of
 * prompts); each is written into the settings' JSON.
 */
function JudgePickers({ settings, onChange }: { settings: string; onChange: (settings: string) => void }) {
  const connections = useAsync(allConnections, 'model-connections');
  const connectionId = settingOf(settings, 'connectionId');
  const promptName = settingOf(settings, 'promptName');
  const suggestions = usePromptSuggestions(promptName);
  const listId = useId();
  const known = (items: { id: string }[] | undefined, id: string) => id === '' || (items ?? []).some((item) => item.id === id);
  return (
    <>
      <FormField
        label="Model connection"
        hint={
          connections.error ? (
            'The model connections could not be listed: write the connectionId in the settings.'
          ) : (
            <>
              The OpenAI-compatible endpoint that judges (<Link to="/settings">Settings › Model connections</Link>).
            </>
          )
        }
      >
        {(control) => (
          <select {...control} value={connectionId} onChange={(e) => onChange(withSetting(settings, 'connectionId', e.target.value))}>
            <option value="">{connections.loading ? 'Loading…' : 'Choose a connection'}</option>
            {!known(connections.data, connectionId) && <option value={connectionId}>{connectionId}</option>}
            {(connections.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.model})
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField
        label="Judge prompt"
        hint={
          suggestions.exists === false
            ? `No prompt is named "${promptName.trim()}" yet: the rule's jobs fail until one is.`
            : 'A prompt of the prompt store using {{input}}, {{output}} and {{expected}}; it answers JSON { score, reason }.'
        }
      >
        {(control) => (
          <>
            <input
              {...control}
              value={promptName}
              list={listId}
              maxLength={100}
              placeholder="Type to search the prompt store"
              onChange={(e) => onChange(withSetting(settings, 'promptName', e.target.value))}
            />
            <datalist id={listId}>
              {suggestions.names.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          </>
        )}
      </FormField>
    </>
  );
}

const settingsOf = (evaluator: Evaluator): Record<string, unknown> => {
  const { type: _type, ...rest } = evaluator as Record<string, unknown>;
  return rest;
};

/** A rule's fields: name, score name, rate, enabled, the runs filter and the evaluator (its type, then its settings as JSON). */
function RuleForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial?: EvaluatorRule;
  submitLabel: string;
  onSubmit: (body: CreateEvaluatorRuleInput) => Promise<void>;
  onCancel: () => void;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [scoreName, setScoreName] = useState(initial?.scoreName ?? '');
  const [rate, setRate] = useState(String(initial?.sampleRate ?? 1));
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const [filter, setFilter] = useState(initial && Object.keys(initial.filter).length > 0 ? jsonText(initial.filter) : '');
  const [type, setType] = useState<EvaluatorType>(initial?.evaluator.type ?? 'json_valid');
  const [settings, setSettings] = useState(jsonText(initial ? settingsOf(initial.evaluator) : TYPES.json_valid.example));
  const [faults, setFaults] = useState<{ filter?: string; settings?: string; rate?: string }>({});
  const { busy, error, submit } = useSubmit(async () => {
    const parsedFilter = parseJson(filter, 'Filter', { object: true });
    const parsedSettings = parseJson(settings, 'Settings', { object: true });
    const sampleRate = Number(rate);
    const found = {
      ...(parsedFilter.ok ? {} : { filter: parsedFilter.fault }),
      ...(parsedSettings.ok ? {} : { settings: parsedSettings.fault }),
      ...(rate.trim() !== '' && sampleRate >= 0 && sampleRate <= 1 ? {} : { rate: 'A sample rate is a number from 0 to 1.' }),
    };
    setFaults(found);
    if (!parsedFilter.ok || !parsedSettings.ok || Object.keys(found).length > 0) return;
    await onSubmit({
      name: name.trim(),
      scoreName: scoreName.trim(),
      sampleRate,
      enabled,
      filter: (parsedFilter.value ?? {}) as CreateEvaluatorRuleInput['filter'],
      evaluator: { ...((parsedSettings.value ?? {}) as Record<string, unknown>), type } as Evaluator,
    });
  });
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={initial ? `Edit ${initial.name}` : 'New evaluator rule'}>
      <FormField label="Name" hint="Unique in the project.">
        {(control) => <input {...control} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoFocus autoComplete="off" />}
      </FormField>
      <FormField label="Score name" hint="The name of the scores the rule gives (source evaluator).">
        {(control) => <input {...control} value={scoreName} onChange={(e) => setScoreName(e.target.value)} required maxLength={100} autoComplete="off" />}
      </FormField>
      <FormField label="Sample rate" hint="From 0 to 1: the share of new matching runs evaluated, the same runs each time." error={faults.rate}>
        {(control) => <input {...control} type="number" min={0} max={1} step="any" value={rate} onChange={(e) => setRate(e.target.value)} required />}
      </FormField>
      <FormField label="Filter" hint='The runs list’s filters as JSON, such as {"kind": "llm", "tag": ["prod"]}; empty: every run.' error={faults.filter}>
        {(control) => (
          <textarea {...control} value={filter} onChange={(e) => setFilter(e.target.value)} rows={3} className="sl-plain-textarea" spellCheck={false} />
        )}
      </FormField>
      <FormField label="Evaluator">
        {(control) => (
          <select
            {...control}
            value={type}
            onChange={(e) => {
              const next = e.target.value as EvaluatorType;
              setType(next);
              setSettings(jsonText(TYPES[next].example));
            }}
          >
            {TYPE_VALUES.map((t) => (
              <option key={t} value={t}>
                {TYPES[t].label}
              </option>
            ))}
          </select>
        )}
      </FormField>
      {type === 'llm_judge' && <JudgePickers settings={settings} onChange={setSettings} />}
      <FormField label="Settings" hint="The evaluator’s fields as JSON (see the README, Evaluators)." error={faults.settings}>
        {(control) => (
          <textarea {...control} value={settings} onChange={(e) => setSettings(e.target.value)} rows={5} className="sl-plain-textarea" spellCheck={false} />
        )}
      </FormField>
      <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} hint="A paused rule samples no new runs; its queued jobs wait." />
      <FormActions
        error={error}
        fields={RULE_FIELDS}
        busy={busy}
        disabled={name.trim() === '' || scoreName.trim() === ''}
        submitLabel={submitLabel}
        onCancel={onCancel}
      />
    </form>
  );
}

/** A project's evaluator rules with their job counts; admins and owners create, edit and delete them. */
export function EvaluatorsPage({ projectId }: { projectId: string }) {
  const { can } = useSession();
  const mayAdmin = can('quality:admin');
  const project = useProject(projectId);
  const list = useList(project.error ? null : evaluators.list(projectId), {});
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<EvaluatorRule | null>(null);
  const [deleting, setDeleting] = useState<EvaluatorRule | null>(null);
  useDocumentTitle('Evaluators', project.data?.name);

  if (project.error instanceof ApiError && project.error.status === 404) {
    return (
      <Empty title="Project not found">
        It may have been deleted, or belong to another organization. <Link to="/projects">See all projects</Link>
      </Empty>
    );
  }

  return (
    <>
      <PageHeader
        title={project.data?.name ?? (project.loading ? 'Loading…' : 'Project')}
        subtitle="Evaluator rules score this project’s new runs in the background: a sample of the runs a filter matches, judged by a built-in check or an LLM judge."
        actions={
          mayAdmin && (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New rule
            </Button>
          )
        }
      />
      <ProjectTabs projectId={projectId} active="evaluators" />
      {project.error !== undefined && <ErrorBox error={project.error} onRetry={project.reload} />}

      <PagedTable
        list={list}
        loadingLabel="Loading evaluator rules…"
        empty={
          <EmptyList one="evaluator rule" many="evaluator rules" filtered={false}>
            {mayAdmin ? 'Create one with “New rule”: new runs that match are scored from then on.' : 'Rules created by admins appear here.'}
          </EmptyList>
        }
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
                <Button variant="ghost" onClick={() => setDeleting(r)} aria-label={`Delete ${r.name}`}>
                  Delete
                </Button>
              </td>
            )}
          </tr>
        )}
      />

      <Modal title="New evaluator rule" open={creating} onClose={() => setCreating(false)}>
        <RuleForm
          submitLabel="Create rule"
          onCancel={() => setCreating(false)}
          onSubmit={async (body) => {
            await evaluators.create(projectId, body);
            setCreating(false);
            list.reload();
          }}
        />
      </Modal>
      <Modal title="Edit evaluator rule" open={editing !== null} onClose={() => setEditing(null)}>
        {editing && (
          <RuleForm
            key={editing.id}
            initial={editing}
            submitLabel="Save rule"
            onCancel={() => setEditing(null)}
            onSubmit={async (body) => {
              await evaluators.update(projectId, editing.id, body);
              setEditing(null);
              list.reload();
            }}
          />
        )}
      </Modal>
      <ConfirmModal
        open={deleting !== null}
        title="Delete evaluator rule"
        confirmLabel="Delete rule"
        busyLabel="Deleting…"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await evaluators.delete(projectId, deleting.id);
          setDeleting(null);
          list.reload();
        }}
      >
        <p>
          Delete <strong>{deleting?.name}</strong> and its queued jobs? The scores it gave stay.
        </p>
      </ConfirmModal>
    </>
  );
}
