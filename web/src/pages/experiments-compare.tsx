import { useState } from 'react';
import { datasets, experiments } from '../api.js';
import { EmptyList, PagedTable } from '../components/paged.js';
import { Empty, ErrorBox, Field, Loading, PageHeader } from '../components/ui.js';
import { fmtMs } from '../format.js';
import { useAsync, useDocumentTitle, useList } from '../hooks.js';
import { Link, useLocation } from '../router.js';
import type { Experiment, ExperimentComparisonRow } from '../types.js';
import { datasetPath } from './datasets/shared.js';
import { Breadcrumbs, setQuery } from './runs/shared.js';
import { ExperimentFacts, experimentPath, fmtDifference, fmtMean, Preview, ScoreChips, scoreText } from './experiments/shared.js';
import './runs/runs.css';
import './datasets/datasets.css';
import './experiments/experiments.css';

type Cell = ExperimentComparisonRow['results'][number];

const cellChips = (cell: Cell) =>
  Object.entries(cell.scores)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, s]) => ({ name, text: s.count === 1 ? scoreText(s.values[0]!) : `${fmtMean(s.mean)} (${s.count})` }));

/** One experiment's side of an item: its output or error (a new one, where the baseline had none, said so), scores and latency. */
function Side({ cell, newError }: { cell: Cell; newError: boolean }) {
  if (!cell.recorded) return <span className="muted">No result</span>;
  return (
    <div>
      {newError && <span className="sl-exp-badge sl-exp-badge-start">New error</span>}
      {cell.error !== null ? <span className="sl-exp-error">{cell.error}</span> : <Preview value={cell.output} side="output" />}
      <ScoreChips scores={cellChips(cell)} />
      <span className="muted">{fmtMs(cell.latencyMs)}</span>
    </div>
  );
}

/** The differences of a row from the baseline, per score name (a regression in red, named), after its new failures. */
function Differences({ row, names }: { row: ExperimentComparisonRow; names: Map<string, string> }) {
  if (row.differences.length === 0 && row.newErrors.length === 0) return <span className="muted">—</span>;
  const several = new Set(row.results.slice(1).map((cell) => cell.experimentId)).size > 1;
  return (
    <ul className="sl-exp-scores">
      {row.newErrors.map((id) => (
        <li key={`${id}:error`} className="sl-exp-diff-down">
          failed{several ? ` (${names.get(id) ?? id})` : ''}
          <span className="sl-sr-only"> where the baseline did not (regression)</span>
        </li>
      ))}
      {row.differences.map((d) => (
        <li
          key={`${d.experimentId}:${d.name}`}
          className={d.regression ? 'sl-exp-diff-down' : d.difference !== null && d.difference > 0 ? 'sl-exp-diff-up' : undefined}
        >
          <span className="sl-exp-score-name">
            {d.name}
            {several ? ` (${names.get(d.experimentId) ?? d.experimentId})` : ''}
          </span>{' '}
          {fmtDifference(d.difference)}
          {d.regression && <span className="sl-sr-only"> (regression)</span>}
        </li>
      ))}
    </ul>
  );
}

/** A threshold as typed: a number of at least 0, or the fault to show. */
function thresholdOf(text: string): number | { fault: string } {
  const value = Number(text);
  return text.trim() === '' || !Number.isFinite(value) || value < 0 ? { fault: 'A number of 0 or more' } : value;
}

/**
 * What counts as a regression, kept in the URL (`metric`, `threshold`): a drop of one score name's mean
 * (or of any) by more than a threshold; a new failure always counts.
 */
function RegressionRule({ path, search, names }: { path: string; search: URLSearchParams; names: string[] }) {
  const metric = search.get('metric') ?? '';
  const [draft, setDraft] = useState(search.get('threshold') ?? '0');
  const parsed = thresholdOf(draft);
  const apply = (key: 'metric' | 'threshold', value: string) => {
    const next = new URLSearchParams(search);
    if (value === '' || (key === 'threshold' && Number(value) === 0)) next.delete(key);
    else next.set(key, value);
    setQuery(path, next, { replace: true });
  };
  return (
    <>
      <Field label="Regression metric">
        <select value={metric} onChange={(e) => apply('metric', e.target.value)}>
          <option value="">Any score</option>
          {[...new Set([...names, ...(metric ? [metric] : [])])].sort().map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Drop more than" hint={typeof parsed === 'number' ? undefined : parsed.fault}>
        <input
          type="number"
          min={0}
          step="any"
          inputMode="decimal"
          value={draft}
          aria-invalid={typeof parsed !== 'number'}
          onChange={(e) => {
            setDraft(e.target.value);
            const value = thresholdOf(e.target.value);
            if (typeof value === 'number') apply('threshold', String(value));
          }}
        />
      </Field>
    </>
  );
}

/**
 * Experiments of one dataset side by side, item by item (`?ids=a,b`, the first the baseline): each item's
 * input and expected output, each experiment's output, scores and latency, and the score differences from
 * the baseline. An item where the chosen score (any, by default) fell by more than the threshold, or where
 * an experiment failed and the baseline did not, is a regression, highlighted; "Regressions only" keeps those.
 */
export function ExperimentsComparePage() {
  const { path, search } = useLocation();
  const idsText = search.get('ids') ?? '';
  const ids = idsText.split(',').filter(Boolean);
  const rule = { metric: search.get('metric') ?? undefined, threshold: search.get('threshold') ?? undefined };
  const loaded = useAsync(() => Promise.all(ids.map((id) => experiments.get(id))), `compare:${idsText}`);
  const list = useList(ids.length >= 2 ? experiments.compare : null, { ids: idsText, ...rule }, 50);
  const compared: Experiment[] = loaded.data ?? [];
  const datasetId = compared[0]?.datasetId;
  const dataset = useAsync(() => (datasetId ? datasets.get(datasetId) : Promise.resolve(null)), `compare-dataset:${datasetId ?? ''}`);
  const [regressionsOnly, setRegressionsOnly] = useState(false);
  useDocumentTitle('Compare experiments', 'Experiments');
  const names = new Map(compared.map((e) => [e.id, e.name]));
  const crumbs = [
    { label: 'Datasets', to: '/datasets' },
    ...(datasetId ? [{ label: dataset.data?.name ?? datasetId, to: datasetPath(datasetId) }] : []),
    { label: 'Compare experiments' },
  ];

  if (ids.length < 2)
    return (
      <>
        <Breadcrumbs items={crumbs} />
        <Empty title="Pick two experiments to compare">Choose them on their dataset's page.</Empty>
      </>
    );
  if (loaded.error) {
    return (
      <>
        <Breadcrumbs items={crumbs} />
        <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      </>
    );
  }
  if (!loaded.data) return <Loading label="Loading experiments…" />;
  const regressions = list.items.filter((row) => row.regression).length;
  const visible = regressionsOnly ? { ...list, items: list.items.filter((row) => row.regression) } : list;

  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title="Compare experiments"
        subtitle={
          <>
            {compared.map((e, i) => (
              <span key={e.id}>
                {i === 0 ? 'Baseline ' : ' vs '}
                <Link to={experimentPath(e.id)}>{e.name}</Link>
              </span>
            ))}
          </>
        }
      />
      {compared.map((e) => (
        <section key={e.id} aria-label={`Facts of ${e.name}`}>
          <h2 className="sl-exp-facts-title">{e.name}</h2>
          <ExperimentFacts experiment={e} />
        </section>
      ))}
      <div className="sl-ds-toolbar">
        <RegressionRule path={path} search={search} names={[...new Set(compared.flatMap((e) => Object.keys(e.aggregates.scores)))]} />
        <label>
          <input type="checkbox" checked={regressionsOnly} onChange={(event) => setRegressionsOnly(event.target.checked)} /> Regressions only
        </label>
        <span role="status" aria-live="polite">
          {list.loaded ? `${regressions} ${regressions === 1 ? 'regression' : 'regressions'} in ${list.items.length} items loaded` : ''}
        </span>
      </div>
      <PagedTable
        list={visible}
        loadingLabel="Loading the comparison…"
        empty={
          <EmptyList one="regression" many="items" filtered={regressionsOnly} whenFiltered="No item failed or lost score against the baseline by this rule.">
            The baseline's dataset version has no items.
          </EmptyList>
        }
        label="Comparison by item"
        className="sl-exp-table"
        columns={['Item', 'Input', 'Expected output', ...compared.map((e, i) => (i === 0 ? `${e.name} (baseline)` : e.name)), 'Score differences']}
        row={(row) => (
          <tr key={row.itemId} className={row.regression ? 'sl-exp-regression' : undefined} data-item={row.itemId}>
            <td>
              <code>{row.itemId}</code>
              {row.regression && <span className="sl-exp-badge">Regression</span>}
            </td>
            <td className="cell-wrap">
              <Preview value={row.input} side="input" />
            </td>
            <td className="cell-wrap">
              <Preview value={row.expectedOutput} side="output" />
            </td>
            {row.results.map((cell) => (
              <td key={cell.experimentId} className="cell-wrap">
                <Side cell={cell} newError={row.newErrors.includes(cell.experimentId)} />
              </td>
            ))}
            <td>
              <Differences row={row} names={names} />
            </td>
          </tr>
        )}
      />
    </>
  );
}
