import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { TIERS, tiers } from '../scripts/eslint-tiers.js';

// The floor plan of src/features/ (ARCHITECTURE.md, Tiers): the lint rule that holds it refuses what it
// must, and the tree as it stands has no feature folder in an import cycle with another.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const features = join(root, 'src', 'features');

RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const at = (path: string) => join(root, path);
/** An import the rule refuses in `path`, with the message it gives. */
const refused = (path: string, code: string, messageId: string) => ({ filename: at(path), code, errors: [{ messageId }] });

describe('sightline/tiers', () => {
  tester.run('tiers', tiers, {
    valid: [
      { filename: at('src/features/traces/traces.repo.ts'), code: "import { toRun } from '../runs/index.js';" },
      { filename: at('src/features/scores/scores.routes.ts'), code: "import { planList } from '../query/index.js';" },
      { filename: at('src/features/runs/runs.routes.ts'), code: "import { ingestRuns } from './runs.ingest.js';" },
      { filename: at('src/app.ts'), code: "import { runRoutes } from './features/runs/index.js';" },
      { filename: at('src/features/runs/runs.routes.ts'), code: "import { pageRoute } from '../page-route.js';" },
      // Wire schemas and pure rules import each other by name (the clients compile them).
      { filename: at('src/features/traces/traces.schemas.ts'), code: "import { scoreFilter } from '../query/filters.schemas.js';" },
      { filename: at('src/features/monitors/monitors.rules.ts'), code: "import type { MetricInputs } from '../query/metrics.rules.js';" },
      { filename: at('src/features/scores/scores.schemas.ts'), code: "import { RunSchema } from '../runs/runs.schemas.js';" },
      // A suite drives the whole service: it may reach any feature, however deep.
      { filename: at('src/features/runs/runs.migration.test.ts'), code: "import { queueEvaluations } from '../evaluators/evaluators.sampling.js';" },
    ],
    invalid: [
      refused('src/features/runs/runs.ingest.ts', "import { queueEvaluations } from '../evaluators/index.js';", 'up'),
      refused('src/features/runs/runs.routes.ts', "import { withSummaries } from '../sessions/index.js';", 'up'),
      refused('src/features/projects/projects.repo.ts', "export { deleteMonitorsWhere } from '../monitors/index.js';", 'up'),
      refused('src/features/traces/traces.repo.ts', "import { toRun } from '../runs/runs.document.js';", 'face'),
      refused('src/app.ts', "import { runRoutes } from './features/runs/runs.routes.js';", 'face'),
      refused('src/features/traces/traces.schemas.ts', "import { scoreFilter } from '../query/index.js';", 'light'),
      refused('src/features/evaluators/evaluators.rules.ts', "import { queueFilters } from '../annotations/annotations.targets.js';", 'light'),
      refused('src/features/runs/runs.routes.ts', "import { toRun } from './index.js';", 'ownFace'),
      refused('src/lib/cors.ts', "import { originAllowList } from '../features/organizations/index.js';", 'kernel'),
      refused('src/deps.ts', "import type { Monitoring } from './features/monitors/index.js';", 'kernel'),
      refused('src/server.ts', "import { Monitoring } from './features/monitors/monitors.service.js';", 'face'),
      refused('src/features/page-route.ts', "import type { Run } from './runs/index.js';", 'kernel'),
      refused('src/features/runs/runs.routes.ts', "const late = await import('../nowhere/index.js');", 'unknown'),
    ],
  });
});

/** The feature folders each feature folder's sources import (suites aside), read with TypeScript's own pre-processor. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const feature of readdirSync(features, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const edges = new Set<string>();
    const dir = join(features, feature.name);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !/\.test(-support)?\.ts$/.test(f))) {
      for (const imported of ts.preProcessFile(readFileSync(join(dir, file), 'utf8'), true, true).importedFiles) {
        if (!imported.fileName.startsWith('.')) continue;
        const target = resolve(dir, imported.fileName);
        if (!target.startsWith(features + sep)) continue;
        const folder = target.slice(features.length + 1).split(sep)[0]!;
        if (folder !== feature.name && !folder.endsWith('.js')) edges.add(folder);
      }
    }
    graph.set(feature.name, edges);
  }
  return graph;
}

describe('the floor plan of src/features/', () => {
  const graph = folderGraph();

  it('places every feature folder in exactly one tier', () => {
    const placed = TIERS.flatMap((tier) => tier.features);
    expect(new Set(placed).size).toBe(placed.length);
    expect([...graph.keys()].sort()).toEqual([...placed].sort());
  });

  it('has no feature folder in an import cycle with another', () => {
    expect([...graph.values()].reduce((n, edges) => n + edges.size, 0)).toBeGreaterThan(30);
    const cycles: string[] = [];
    for (const start of graph.keys()) {
      const stack: string[][] = [[start]];
      while (stack.length > 0) {
        const path = stack.pop()!;
        for (const next of graph.get(path.at(-1)!) ?? []) {
          if (next === start) cycles.push([...path, next].join(' → '));
          else if (!path.includes(next)) stack.push([...path, next]);
        }
      }
    }
    expect(cycles).toEqual([]);
  });
});
