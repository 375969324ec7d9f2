import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, annotationQueues } from '../api.js';
import { Button, ErrorBox, Loading, PageHeader } from '../components/ui.js';
import type { FieldLabels } from '../components/problems.js';
import { fmtNumber } from '../format.js';
import { useAsync, useDocumentTitle, useProject } from '../hooks.js';
import { Link } from '../router.js';
import type { AnnotationItem, AnnotationQueue } from '../types.js';
import { actionOf, choicesOf, completionOf, digitTarget, moveFocus, type Chosen } from './annotations/review-model.js';
import { CONFIG_ATTRIBUTE, ConfigInput, focusOf, LeaseLeft, Shortcuts } from './annotations/review-parts.js';
import { QueueProgress, queuePath, queuesPath, useQueueConfigs } from './annotations/shared.js';
import { ItemTarget } from './annotations/target.js';
import { TextAreaField } from './prompts/controls.js';
import { Breadcrumbs } from './runs/shared.js';

/** Where the review stands: claiming, an item held, nothing left to claim, or the item lost (a 409). */
type Phase =
  | { kind: 'claiming' }
  | { kind: 'item'; item: AnnotationItem }
  | { kind: 'done'; counts: AnnotationQueue['counts'] }
  | { kind: 'lost'; item: AnnotationItem; error: unknown }
  | { kind: 'failed'; error: unknown };

/**
 * The review screen: claims the next item of the queue, shows its run (or its trace's root run) as a
 * conversation beside an input for each of the queue's scores and a comment; Complete stores the scores
 * and claims the next item, Skip passes it. Driven by the keyboard (see review-model.ts); says how long
 * the item stays held, when it was lost (a 409), and when nothing is left to claim.
 */
export function AnnotationReviewPage({ projectId, queueId }: { projectId: string; queueId: string }) {
  const project = useProject(projectId);
  const queueState = useAsync(() => annotationQueues.get(projectId, queueId), `annotation-queue:${projectId}/${queueId}`);
  const queue = queueState.data?.id === queueId ? queueState.data : undefined;
  const configState = useQueueConfigs(queue);
  const configs = configState.data ?? [];
  const [phase, setPhase] = useState<Phase>({ kind: 'claiming' });
  const [values, setValues] = useState<Chosen[]>([]);
  const [comment, setComment] = useState('');
  const [faults, setFaults] = useState<Record<number, string>>({});
  const [problem, setProblem] = useState<{ error: unknown; fields?: FieldLabels } | null>(null);
  const [busy, setBusy] = useState(false);
  const [help, setHelp] = useState(false);
  const [notice, setNotice] = useState('');
  const [reviewed, setReviewed] = useState(0);
  const scoresRef = useRef<HTMLFormElement>(null);
  useDocumentTitle(queue ? `Review ${queue.name}` : 'Review', project.data?.name);

  // What was chosen stays while the same item comes back (a claim renewing the lease); another item starts afresh.
  const held = useRef<string | null>(null);
  const claim = useCallback(async () => {
    setPhase({ kind: 'claiming' });
    setProblem(null);
    try {
      const item = await annotationQueues.claim(projectId, queueId);
      if (item?.id !== held.current) {
        held.current = item?.id ?? null;
        setValues([]);
        setComment('');
        setFaults({});
      }
      if (item) {
        setPhase({ kind: 'item', item });
        return;
      }
      const latest = await annotationQueues.get(projectId, queueId);
      setPhase({ kind: 'done', counts: latest.counts });
    } catch (error) {
      setPhase({ kind: 'failed', error });
    }
  }, [projectId, queueId]);

  useEffect(() => {
    void claim();
  }, [claim]);

  /** Runs a complete or skip: on success the next claim; a 409 is the item lost; else the problem, shown. */
  async function settle(item: AnnotationItem, action: () => Promise<unknown>, done: string, fields?: FieldLabels) {
    setBusy(true);
    setProblem(null);
    try {
      await action();
      setReviewed((n) => n + 1);
      setNotice(done);
      (document.activeElement as HTMLElement | null)?.blur?.();
      await claim();
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) setPhase({ kind: 'lost', item, error });
      else setProblem({ error, ...(fields ? { fields } : {}) });
    } finally {
      setBusy(false);
    }
  }

  function complete() {
    if (phase.kind !== 'item' || busy) return;
    const result = completionOf(configs, values, comment);
    if ('faults' in result) {
      setFaults(result.faults);
      setProblem(null);
      const first = Number(Object.keys(result.faults)[0]);
      scoresRef.current?.querySelector<HTMLInputElement>(`[${CONFIG_ATTRIBUTE}="${first}"] input`)?.focus();
      return;
    }
    setFaults({});
    if ('empty' in result) {
      setProblem({
        error: new ApiError(
          0,
          'No score given',
          configs.length === 0 ? 'This queue asks for no score: skip the item (s).' : 'Give at least one score, or skip the item (s).',
        ),
      });
      return;
    }
    // A refused score is named as the form names it: `/scores/1/value` is the second score given.
    const fields: Record<string, string> = { scores: 'Scores' };
    result.body.scores.forEach((score, i) => {
      const name = configs.find((c) => c.id === score.configId)?.name ?? `Score ${i + 1}`;
      fields[`scores/${i}`] = name;
      fields[`scores/${i}/comment`] = 'Comment';
    });
    const item = phase.item;
    void settle(item, () => annotationQueues.complete(projectId, queueId, item.id, result.body), `Completed ${item.targetId}.`, fields);
  }

  function skip() {
    if (phase.kind !== 'item' || busy) return;
    const item = phase.item;
    void settle(item, () => annotationQueues.skip(projectId, queueId, item.id), `Skipped ${item.targetId}.`);
  }

  function setValue(index: number, value: Chosen) {
    setValues((current) => {
      const next = [...current];
      next[index] = value;
      return next;
    });
  }

  // The keys, read against the latest state (the listener is added once).
  const onKey = useRef<(event: KeyboardEvent) => void>(() => {});
  onKey.current = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.isComposing) return;
    const focus = focusOf(document.activeElement);
    if (document.querySelector('dialog[open]')) return;
    const action = actionOf({
      key: event.key,
      ctrlKey: event.ctrlKey,
      metaKey: event.metaKey,
      altKey: event.altKey,
      shiftKey: event.shiftKey,
      focus: focus.kind,
    });
    if (!action) return;
    if (action.kind === 'help') {
      event.preventDefault();
      setHelp((open) => !open);
      return;
    }
    if (action.kind === 'escape') {
      if (focus.kind === 'text') (document.activeElement as HTMLElement).blur();
      else if (help) setHelp(false);
      return;
    }
    if (phase.kind !== 'item') return;
    event.preventDefault();
    if (action.kind === 'complete') complete();
    else if (action.kind === 'skip') skip();
    else if (action.kind === 'choose') {
      const target = digitTarget(configs, values, focus.kind === 'config' ? focus.config : null);
      const choice = target === null ? undefined : choicesOf(configs[target]!)[action.index];
      if (target !== null && choice) setValue(target, choice.value);
    } else {
      const to = moveFocus(configs.length, focus.config, action.kind === 'next' ? 1 : -1);
      const element = to === null ? null : scoresRef.current?.querySelector<HTMLElement>(`[${CONFIG_ATTRIBUTE}="${to}"]`);
      (element?.getAttribute('role') === 'radiogroup' ? element : element?.querySelector<HTMLElement>('input'))?.focus();
    }
  };
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKey.current(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  const crumbs = [
    { label: 'Projects', to: '/projects' },
    { label: project.data?.name ?? 'Project', to: `/projects/${projectId}/traces` },
    { label: 'Annotation queues', to: queuesPath(projectId) },
    { label: queue?.name ?? queueId, to: queuePath(projectId, queueId) },
    { label: 'Review' },
  ];
  if (queueState.error)
    return (
      <>
        <Breadcrumbs items={crumbs} />
        <ErrorBox error={queueState.error} onRetry={queueState.error instanceof ApiError && queueState.error.status === 404 ? undefined : queueState.reload} />
      </>
    );

  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title={queue ? `Review: ${queue.name}` : 'Review'}
        subtitle={queue?.description || 'Score each item, then complete it (Enter) or skip it (s). Press ? for the shortcuts.'}
        actions={
          <Button variant="ghost" aria-expanded={help} onClick={() => setHelp(!help)}>
            Shortcuts <kbd>?</kbd>
          </Button>
        }
      />
      <p className="sl-sr-only" role="status" aria-live="polite">
        {notice}
      </p>
      {help && <Shortcuts />}
      {reviewed > 0 && <p className="muted">{fmtNumber(reviewed)} reviewed in this visit.</p>}
      {configState.error !== undefined && <ErrorBox error={configState.error} onRetry={configState.reload} />}

      {phase.kind === 'claiming' ? (
        <Loading label="Claiming the next item…" />
      ) : phase.kind === 'failed' ? (
        <ErrorBox error={phase.error} onRetry={() => void claim()} />
      ) : phase.kind === 'done' ? (
        <section className="panel" aria-labelledby="review-done-title">
          <h2 id="review-done-title">{phase.counts.pending + phase.counts.inProgress === 0 ? 'This queue is done' : 'No item is free to review'}</h2>
          <p>
            {phase.counts.inProgress > 0
              ? `${fmtNumber(phase.counts.inProgress)} held by other reviewers: they return to the queue if their lease runs out.`
              : 'Every item has been completed or skipped.'}
          </p>
          <QueueProgress counts={phase.counts} label="Progress of the queue" />
          <p className="sl-aq-actions">
            <Button onClick={() => void claim()}>Check again</Button>
            <Link to={queuePath(projectId, queueId)}>Back to the queue</Link>
          </p>
        </section>
      ) : phase.kind === 'lost' ? (
        <section className="panel" aria-labelledby="review-lost-title">
          <h2 id="review-lost-title">This item is no longer yours</h2>
          <p>Its lease ran out or it was settled meanwhile: what you gave it was not stored. Claim again to go on.</p>
          <ErrorBox error={phase.error} />
          <p className="sl-aq-actions">
            <Button variant="primary" onClick={() => void claim()}>
              Claim again
            </Button>
          </p>
        </section>
      ) : !configState.data ? (
        <Loading label="Loading the scores asked for…" />
      ) : (
        <div className="sl-aq-layout">
          <ItemTarget projectId={projectId} item={phase.item} />
          <section className="panel sl-aq-scores" aria-labelledby="review-scores-title">
            <h2 id="review-scores-title">Scores</h2>
            <LeaseLeft until={phase.item.leaseUntil} onRenew={() => void claim()} />
            <form ref={scoresRef} aria-label="Scores of this item" onSubmit={(e) => e.preventDefault()} noValidate>
              {configs.length === 0 && <p className="muted">This queue asks for no score: skip the item, or ask an admin to add score configs to the queue.</p>}
              {configs.map((config, i) => (
                <ConfigInput key={config.id} config={config} index={i} value={values[i]} fault={faults[i]} onChange={(value) => setValue(i, value)} />
              ))}
              <TextAreaField label="Comment" hint="Stored with each score. Ctrl+Enter (⌘+Enter) completes." value={comment} onChange={setComment} />
              {problem && <ErrorBox error={problem.error} fields={problem.fields} />}
              <div className="sl-aq-actions">
                <Button variant="primary" disabled={busy} onClick={complete}>
                  {busy ? 'Saving…' : 'Complete'} <kbd aria-hidden="true">Enter</kbd>
                </Button>
                <Button disabled={busy} onClick={skip}>
                  Skip <kbd aria-hidden="true">s</kbd>
                </Button>
              </div>
            </form>
          </section>
        </div>
      )}
    </>
  );
}
