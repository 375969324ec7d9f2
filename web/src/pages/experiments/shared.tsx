import { fmtCost, fmtMs, fmtNumber } from '../../format.js';
import { fmtScoreValue } from '../../components/score-value.js';
import { Fact } from '../../components/ui.js';
import type { Experiment } from '../../types.js';

export { Preview } from '../datasets/preview.js';

export const experimentPath = (experimentId: string) => `/experiments/${encodeURIComponent(experimentId)}`;
export const comparePath = (ids: readonly string[]) => `/experiments/compare?ids=${ids.map(encodeURIComponent).join(',')}`;
export const runPath = (projectId: string, runId: string) => `/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}`;
export const tracePath = (projectId: string, traceId: string) => `/projects/${encodeURIComponent(projectId)}/traces/${encodeURIComponent(traceId)}`;

/** A score mean as shown: up to 3 decimals; none is a dash. */
export function fmtMean(mean: number | null | undefined): string {
  if (mean === null || mean === undefined) return '—';
  return String(Math.round(mean * 1000) / 1000);
}

/** A difference of means with its sign (+0.25, −1); none is a dash. */
export function fmtDifference(difference: number | null): string {
  if (difference === null) return '—';
  const rounded = Math.round(difference * 1000) / 1000;
  return rounded > 0 ? `+${rounded}` : rounded < 0 ? `−${Math.abs(rounded)}` : '0';
}

/** Scores by name as short chips: `name value` (several of one name: their mean and count). */
export function ScoreChips({ scores }: { scores: { name: string; text: string }[] }) {
  if (scores.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="sl-exp-scores">
      {scores.map((s) => (
        <li key={s.name}>
          <span className="sl-exp-score-name">{s.name}</span> {s.text}
        </li>
      ))}
    </ul>
  );
}

/** An experiment's score means, as chips. */
export const aggregateChips = (experiment: Experiment) =>
  Object.entries(experiment.aggregates.scores)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, s]) => ({ name, text: `${fmtMean(s.mean)} (${s.count})` }));

/** One score's value as text. */
export const scoreText = fmtScoreValue;

/** An experiment's facts: progress, latency, tokens and cost. */
export function ExperimentFacts({ experiment }: { experiment: Experiment }) {
  const { counts, aggregates } = experiment;
  return (
    <dl className="sl-ds-facts">
      <Fact label="Status">{experiment.status}</Fact>
      <Fact label="Done">
        {fmtNumber(counts.done)} of {fmtNumber(counts.items)}
      </Fact>
      <Fact label="Failed">{fmtNumber(counts.failed)}</Fact>
      <Fact label="Latency p50 / p95">
        {fmtMs(aggregates.latency.p50)} / {fmtMs(aggregates.latency.p95)}
      </Fact>
      <Fact label="Tokens">{fmtNumber(aggregates.tokens)}</Fact>
      <Fact label="Cost">{fmtCost(aggregates.cost)}</Fact>
      <Fact label="Dataset version">v{experiment.datasetVersion}</Fact>
    </dl>
  );
}
