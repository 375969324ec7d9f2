import { datasets, experiments } from '../api.js';
import { narrow, num, PagedTable } from '../components/paged.js';
import { Button, JsonView, PageHeader, Panel } from '../components/ui.js';
import { fmtCost, fmtMs } from '../format.js';
import { useAsync, useDocumentTitle, useList } from '../hooks.js';
import { Link } from '../router.js';
import type { ExperimentResult } from '../types.js';
import { datasetPath } from './datasets/shared.js';
import { Breadcrumbs, Pending } from './runs/shared.js';
import { aggregateChips, ExperimentFacts, Preview, runPath, ScoreChips, scoreText, tracePath } from './experiments/shared.js';
import './runs/runs.css';
import './datasets/datasets.css';
import './experiments/experiments.css';

/** A result's scores, by name (several of one name: each value, in order). */
function resultChips(result: ExperimentResult) {
  const byName = new Map<string, string[]>();
  for (const score of [...result.scores].reverse()) byName.set(score.name, [...(byName.get(score.name) ?? []), scoreText(score.value)]);
  return [...byName.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, values]) => ({ name, text: values.join(', ') }));
}

/**
 * One experiment: its progress and aggregates (latency, tokens, cost, score means), and its results, one
 * per dataset item: the item's input and expected output at the experiment's version, the output (or the
 * error), the scores on its run, latency and cost, and links to the run and its trace.
 */
export function ExperimentPage({ experimentId }: { experimentId: string }) {
  const state = useAsync(() => experiments.get(experimentId), `experiment:${experimentId}`);
  const experiment = state.data?.id === experimentId ? state.data : undefined;
  const dataset = useAsync(
    () => (experiment ? datasets.get(experiment.datasetId) : Promise.resolve(null)),
    `experiment-dataset:${experiment?.datasetId ?? ''}`,
  );
  const results = useList(experiment ? experiments.results(experiment.id) : null, {}, 50);
  useDocumentTitle(experiment?.name ?? 'Experiment', 'Experiments');
  const datasetName = dataset.data?.name ?? experiment?.datasetId ?? 'Dataset';
  const crumbs = [
    { label: 'Datasets', to: '/datasets' },
    ...(experiment ? [{ label: datasetName, to: datasetPath(experiment.datasetId) }] : []),
    { label: experiment?.name ?? experimentId },
  ];
  if (!experiment) return <Pending crumbs={crumbs} state={state} label="Loading experiment…" />;
  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader
        title={<span className="sl-title">{experiment.name}</span>}
        subtitle={
          <>
            Over <Link to={datasetPath(experiment.datasetId)}>{datasetName}</Link> at version {experiment.datasetVersion}
          </>
        }
        actions={
          <Button
            onClick={() => {
              void state.reload();
              results.reload();
            }}
            disabled={state.loading}
          >
            ↻ Refresh
          </Button>
        }
      />
      <ExperimentFacts experiment={experiment} />
      <Panel heading="experiment-scores" title="Scores">
        <ScoreChips scores={aggregateChips(experiment)} />
        {Object.keys(experiment.metadata).length > 0 && <JsonView value={experiment.metadata} name="metadata" />}
      </Panel>
      <Panel heading="experiment-results" title="Results">
        <PagedTable
          list={results}
          empty={{ one: 'result', many: 'results', none: 'Results appear as the experiment records them.' }}
          label={`Results of ${experiment.name}`}
          className="sl-exp-table"
          columns={['Item', 'Input', 'Expected output', 'Output', 'Scores', num('Latency'), num('Cost', 'hide-narrow'), narrow('Run')]}
          row={(result) => (
            <tr key={result.itemId}>
              <td>
                <code>{result.itemId}</code>
              </td>
              <td className="cell-wrap">
                <Preview value={result.item?.input} side="input" />
              </td>
              <td className="cell-wrap">
                <Preview value={result.item?.expectedOutput} side="output" />
              </td>
              <td className="cell-wrap">
                {result.error !== null ? <span className="sl-exp-error">{result.error}</span> : <Preview value={result.output} side="output" />}
              </td>
              <td>
                <ScoreChips scores={resultChips(result)} />
              </td>
              <td className="num">{fmtMs(result.latencyMs)}</td>
              <td className="num hide-narrow">{fmtCost(result.cost)}</td>
              <td className="hide-narrow">
                <span className="sl-exp-links">
                  <Link to={runPath(experiment.projectId, result.runId)} aria-label={`Run of item ${result.itemId}`}>
                    Run
                  </Link>
                  {result.traceId && (
                    <Link to={tracePath(experiment.projectId, result.traceId)} aria-label={`Trace of item ${result.itemId}`}>
                      Trace
                    </Link>
                  )}
                </span>
              </td>
            </tr>
          )}
        />
      </Panel>
    </>
  );
}
