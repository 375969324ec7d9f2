/**
 * Adding to a queue: the runs (or traces) that match the runs list's filters, the newest up to a limit,
 * or a sample of them at a rate; or runs (traces) by id.
 */
import { useState } from 'react';
import { annotationQueues } from '../../api.js';
import { Button, ErrorBox } from '../../components/ui.js';
import { fmtNumber } from '../../format.js';
import type { AnnotationItemsAdded, AnnotationQueue } from '../../types.js';
import { Checkbox, FormField, SelectField } from '../prompts/controls.js';
import { RUN_KINDS, RUN_STATUSES } from '../runs/shared.js';
import { EMPTY_DRAFT, requestOf, type Draft } from './add-request.js';

/** How the form names what a problem points at. */
const FIELDS = {
  ids: 'Ids',
  'ids/*': 'Id {n}',
  filter: 'Filters',
  'filter/status': 'Status',
  'filter/kind': 'Kind',
  'filter/name': 'Name',
  'filter/model': 'Model',
  'filter/tag': 'Tags',
  'filter/tag/*': 'Tag {n}',
  'filter/q': 'Search',
  'filter/startedAfter': 'Started after',
  'filter/startedBefore': 'Started before',
  'filter/parentRunId': 'Roots only',
  rate: 'Sample',
  limit: 'At most',
};

/** `Added 3 · 1 already in the queue · 4 looked at`. */
function addedText(result: AnnotationItemsAdded): string {
  return `Added ${fmtNumber(result.added)} · ${fmtNumber(result.existing)} already in the queue · ${fmtNumber(result.examined)} looked at`;
}

export function AddItemsForm({ projectId, queue, onAdded }: { projectId: string; queue: AnnotationQueue; onAdded: () => void }) {
  const [mode, setMode] = useState<'filter' | 'ids'>('filter');
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [ids, setIds] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<AnnotationItemsAdded | null>(null);
  const [percentFault, setPercentFault] = useState<string | null>(null);
  const noun = queue.target === 'run' ? 'runs' : 'traces';
  const set = (key: keyof Draft) => (event: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: event.target.value }));

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    // A percentage is checked here: the server's fault would be about the rate, a fraction of 1.
    const percent = draft.percent.trim() === '' ? null : Number(draft.percent);
    const outOfRange = mode === 'filter' && percent !== null && !(percent > 0 && percent <= 100);
    setPercentFault(outOfRange ? 'More than 0 and at most 100.' : null);
    if (outOfRange) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const body =
        mode === 'ids'
          ? {
              ids: [
                ...new Set(
                  ids
                    .split(/[\s,]+/)
                    .map((id) => id.trim())
                    .filter(Boolean),
                ),
              ],
            }
          : requestOf(draft, queue.target);
      setResult(await annotationQueues.addItems(projectId, queue.id, body));
      onAdded();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Add items">
      <FormField label="Add">
        {(control) => (
          <select {...control} value={mode} onChange={(e) => setMode(e.target.value as 'filter' | 'ids')}>
            <option value="filter">{`The ${noun} matching filters`}</option>
            <option value="ids">{`${noun[0]!.toUpperCase()}${noun.slice(1)} by id`}</option>
          </select>
        )}
      </FormField>
      {mode === 'ids' ? (
        <FormField label="Ids" hint={`Separated by commas, spaces or lines; every one must be one of the project’s ${noun}.`}>
          {(control) => <textarea {...control} value={ids} onChange={(e) => setIds(e.target.value)} rows={3} required className="sl-plain-textarea" />}
        </FormField>
      ) : (
        <>
          <p className="field-hint">The runs list’s filters, the same names and meaning; none: every {queue.target}. The newest matches first.</p>
          <div className="form-grid">
            <SelectField label="Status" value={draft.status} onChange={(status) => setDraft((d) => ({ ...d, status }))} values={RUN_STATUSES} any="Any" />
            <SelectField label="Kind" value={draft.kind} onChange={(kind) => setDraft((d) => ({ ...d, kind }))} values={RUN_KINDS} any="Any" />
            <FormField label="Name">{(control) => <input {...control} value={draft.name} onChange={set('name')} autoComplete="off" />}</FormField>
            <FormField label="Model">{(control) => <input {...control} value={draft.model} onChange={set('model')} autoComplete="off" />}</FormField>
            <FormField label="Tags" hint="Separated by commas: every one">
              {(control) => <input {...control} value={draft.tags} onChange={set('tags')} autoComplete="off" />}
            </FormField>
            <FormField label="Search" hint="Text in the inputs or outputs">
              {(control) => <input {...control} value={draft.q} onChange={set('q')} autoComplete="off" />}
            </FormField>
            <FormField label="Started after">
              {(control) => <input {...control} type="datetime-local" value={draft.startedAfter} onChange={set('startedAfter')} />}
            </FormField>
            <FormField label="Started before">
              {(control) => <input {...control} type="datetime-local" value={draft.startedBefore} onChange={set('startedBefore')} />}
            </FormField>
            <FormField label="Sample (%)" hint="Empty: every match. The same sample each time." error={percentFault}>
              {(control) => <input {...control} value={draft.percent} onChange={set('percent')} inputMode="decimal" placeholder="e.g. 10" />}
            </FormField>
            <FormField label="At most" hint="Empty: 1,000">
              {(control) => <input {...control} value={draft.limit} onChange={set('limit')} inputMode="numeric" />}
            </FormField>
          </div>
          {queue.target === 'run' && (
            <Checkbox
              label="Roots only"
              checked={draft.rootsOnly}
              onChange={(rootsOnly) => setDraft((d) => ({ ...d, rootsOnly }))}
              hint="Runs without a parent"
            />
          )}
        </>
      )}
      {error !== null && <ErrorBox error={error} fields={FIELDS} />}
      <div className="sl-aq-actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add to queue'}
        </Button>
        <span role="status" aria-live="polite">
          {result && addedText(result)}
        </span>
      </div>
    </form>
  );
}
