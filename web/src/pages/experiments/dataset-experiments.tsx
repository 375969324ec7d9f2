import { useState } from 'react';
import { experiments } from '../../api.js';
import { narrow, num, PagedTable } from '../../components/paged.js';
import { Button, Panel, When } from '../../components/ui.js';
import { fmtCost, fmtMs, fmtNumber } from '../../format.js';
import { useList } from '../../hooks.js';
import { Link, navigate } from '../../router.js';
import type { Dataset } from '../../types.js';
import { aggregateChips, comparePath, experimentPath, ScoreChips } from './shared.js';
import './experiments.css';

/**
 * A dataset's experiments, newest first, each with its progress and aggregates; two (or more, up to 5)
 * picked are compared item by item, the first picked as the baseline.
 */
export function DatasetExperiments({ dataset }: { dataset: Dataset }) {
  const list = useList(experiments.list, { datasetId: dataset.id }, 25);
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (id: string) => setPicked((previous) => (previous.includes(id) ? previous.filter((p) => p !== id) : [...previous, id].slice(-5)));
  return (
    <Panel heading="dataset-experiments" title="Experiments">
      <div className="sl-ds-toolbar">
        <Button variant="primary" disabled={picked.length < 2} onClick={() => navigate(comparePath(picked))}>
          Compare {picked.length >= 2 ? picked.length : ''} experiments
        </Button>
        <span className="muted">{picked.length < 2 ? 'Pick two experiments to compare them (the first picked is the baseline).' : ''}</span>
      </div>
      <PagedTable
        list={list}
        empty={{
          one: 'experiment',
          many: 'experiments',
          none: (
            <>
              Run one with the SDK's <code>runExperiment</code>, or through <code>POST /v1/experiments</code>.
            </>
          ),
        }}
        label={`Experiments of ${dataset.name}`}
        columns={[
          { label: <span className="sl-sr-only">Compare</span>, className: 'sl-actions-col' },
          'Experiment',
          'Status',
          num('Done'),
          num('Failed'),
          'Scores',
          num('Latency p50', 'hide-narrow'),
          num('Cost', 'hide-narrow'),
          narrow('Created'),
        ]}
        row={(experiment) => (
          <tr key={experiment.id}>
            <td>
              <input
                type="checkbox"
                aria-label={`Compare ${experiment.name}`}
                checked={picked.includes(experiment.id)}
                onChange={() => toggle(experiment.id)}
              />
            </td>
            <td>
              <Link to={experimentPath(experiment.id)}>{experiment.name}</Link>
            </td>
            <td>{experiment.status}</td>
            <td className="num">
              {fmtNumber(experiment.counts.done)} / {fmtNumber(experiment.counts.items)}
            </td>
            <td className="num">{fmtNumber(experiment.counts.failed)}</td>
            <td>
              <ScoreChips scores={aggregateChips(experiment)} />
            </td>
            <td className="num hide-narrow">{fmtMs(experiment.aggregates.latency.p50)}</td>
            <td className="num hide-narrow">{fmtCost(experiment.aggregates.cost)}</td>
            <td className="hide-narrow sl-nowrap">
              <When iso={experiment.createdAt} />
            </td>
          </tr>
        )}
      />
    </Panel>
  );
}
