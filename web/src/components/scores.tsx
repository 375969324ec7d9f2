import { useId, useState, type FormEvent } from 'react';
import { evaluators, scoreConfigs, scores, type ScoreTargetKind } from '../api.js';
import { useAsync, useList } from '../hooks.js';
import { useSession } from '../session.js';
import type { Score } from '../types.js';
import { fmtScoreValue, parseScoreValue } from './score-value.js';
import { Badge, Button, ErrorBox } from './ui.js';

const FILTER: Record<ScoreTargetKind, 'runId' | 'traceId' | 'sessionId'> = { runs: 'runId', traces: 'traceId', sessions: 'sessionId' };
const NOUN: Record<ScoreTargetKind, string> = { runs: 'run', traces: 'trace', sessions: 'session' };

/** The evaluator rules of a project by id, read only when a score was given by one. */
function useRuleNames(projectId: string, wanted: boolean): Map<string, string> {
  const rules = useAsync(
    () =>
      wanted
        ? evaluators
            .list(projectId)
            .page({ limit: '100' })
            .then((page) => page.items)
        : Promise.resolve([]),
    `rules:${projectId}:${wanted}`,
  );
  return new Map((rules.data ?? []).map((rule) => [rule.id, rule.name]));
}

/**
 * The scores of a run, a trace (its own and its runs') or a session, and a form to add one in place:
 * the organization's score configs are offered by name, and a config's type decides the value's input
 * (a number within its range, true or false, one of its categories). Each score names its run (by the
 * run's name, where `runNames` knows it; `onOpenRun` opens it) and its author (you, a teammate, or the
 * evaluator rule by name). The author of a score, or an admin, may delete it.
 */
export function ScoresPanel({
  projectId,
  kind,
  targetId,
  runNames,
  onOpenRun,
}: {
  projectId: string;
  kind: ScoreTargetKind;
  targetId: string;
  runNames?: Map<string, string>;
  onOpenRun?: (runId: string) => void;
}) {
  const { me, can } = useSession();
  const list = useList(scores.list(projectId), { [FILTER[kind]]: targetId }, 100);
  const configs = useList(scoreConfigs.list, { archived: false }, 100);
  const mayWrite = can('scores:write');
  const mayDelete = (score: Score) => mayWrite && (can('quality:admin') || (score.author.kind === 'user' && score.author.id === me.user.id));
  const [removing, setRemoving] = useState<unknown>(null);
  const ruleNames = useRuleNames(
    projectId,
    list.items.some((score) => score.author.kind === 'rule'),
  );

  return (
    <section className="sl-scores" aria-label="Scores">
      <h3>Scores</h3>
      {list.error ? <ErrorBox error={list.error} onRetry={list.reload} /> : null}
      {list.items.length === 0 && list.loaded && !list.error && <p className="muted">No scores yet.</p>}
      {list.items.length > 0 && (
        <ul className="sl-score-list" aria-label={`Scores of this ${NOUN[kind]}`}>
          {list.items.map((score) => (
            <li key={score.id} className="sl-score">
              <span className="sl-score-name">{score.name}</span> <strong className="sl-score-value">{fmtScoreValue(score.value)}</strong>{' '}
              <Badge tone={score.source === 'evaluator' ? 'info' : score.source === 'annotation' ? 'warn' : 'neutral'}>{score.source}</Badge>
              {kind === 'traces' && score.runId && (
                <span className="muted">
                  {' · on '}
                  {onOpenRun ? (
                    <button type="button" className="link" onClick={() => onOpenRun(score.runId!)}>
                      {runNames?.get(score.runId) ?? score.runId}
                    </button>
                  ) : (
                    (runNames?.get(score.runId) ?? score.runId)
                  )}
                </span>
              )}
              <span className="muted">
                {' '}
                ·{' '}
                {score.author.kind === 'user' && score.author.id === me.user.id
                  ? 'you'
                  : score.author.kind === 'rule'
                    ? `evaluator ${ruleNames.get(score.author.id) ?? 'rule'}`
                    : 'a teammate'}
              </span>
              {score.comment && <div className="sl-score-comment">{score.comment}</div>}
              {mayDelete(score) && (
                <Button
                  variant="ghost"
                  aria-label={`Delete the score ${score.name}`}
                  onClick={async () => {
                    try {
                      await scores.remove(projectId, score.id);
                      list.setItems((items) => items.filter((s) => s.id !== score.id));
                    } catch (error) {
                      setRemoving(error);
                    }
                  }}
                >
                  Delete
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {removing !== null && <ErrorBox error={removing} />}
      {mayWrite && (
        <AddScore
          projectId={projectId}
          kind={kind}
          targetId={targetId}
          configs={configs.items}
          onAdded={(score) => list.setItems((items) => [score, ...items])}
        />
      )}
    </section>
  );
}

function AddScore({
  projectId,
  kind,
  targetId,
  configs,
  onAdded,
}: {
  projectId: string;
  kind: ScoreTargetKind;
  targetId: string;
  configs: { id: string; name: string; dataType: 'numeric' | 'boolean' | 'categorical'; min: number | null; max: number | null; categories: string[] | null }[];
  onAdded: (score: Score) => void;
}) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [comment, setComment] = useState('');
  const [fault, setFault] = useState<string | null>(null);
  const config = configs.find((c) => c.name === name.trim()) ?? null;
  const listId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // The form stays open for the next score: busy only while a request is out.
  async function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = parseScoreValue(value, config);
    setFault('fault' in parsed ? parsed.fault : null);
    if ('fault' in parsed) return;
    setBusy(true);
    setError(null);
    try {
      onAdded(
        await scores.create(projectId, kind, targetId, { name: name.trim(), value: parsed.value, ...(comment.trim() ? { comment: comment.trim() } : {}) }),
      );
      setValue('');
      setComment('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }
  const choices = config?.dataType === 'boolean' ? ['true', 'false'] : config?.dataType === 'categorical' ? (config.categories ?? []) : null;
  return (
    <form className="sl-score-form" aria-label={`Add a score to this ${NOUN[kind]}`} onSubmit={submit}>
      <label>
        <span>Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} list={listId} required maxLength={100} placeholder="e.g. helpfulness" />
      </label>
      <datalist id={listId}>
        {configs.map((c) => (
          <option key={c.id} value={c.name} />
        ))}
      </datalist>
      <label>
        <span>Value</span>
        {choices ? (
          <select value={value} onChange={(e) => setValue(e.target.value)} required>
            <option value="">Choose…</option>
            {choices.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        ) : (
          <input
            value={value}
            onChange={(e) => setValue(e.target.value)}
            required
            inputMode={config?.dataType === 'numeric' ? 'decimal' : undefined}
            placeholder={config?.dataType === 'numeric' ? `${config.min ?? ''}–${config.max ?? ''}` : 'a number, true/false or a label'}
          />
        )}
      </label>
      <label>
        <span>Comment</span>
        <input value={comment} onChange={(e) => setComment(e.target.value)} maxLength={10_000} placeholder="optional" />
      </label>
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? 'Adding…' : 'Add score'}
      </Button>
      {fault ? (
        <p role="alert" className="sl-field-fault">
          {fault}
        </p>
      ) : error ? (
        <ErrorBox error={error} fields={{ value: 'Value', name: 'Name', comment: 'Comment' }} />
      ) : null}
    </form>
  );
}
