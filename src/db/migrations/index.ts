import type { Migration } from 'kysely';
import * as core from './2026-11-22-001-core.js';
import * as access from './2026-11-22-002-access.js';
import * as prompts from './2026-11-22-003-prompts.js';
import * as monitors from './2026-11-22-004-monitors.js';
import * as sessions from './2026-11-22-005-sessions.js';
import * as runContext from './2026-11-23-006-run-context.js';
import * as rollups from './2026-11-23-008-rollups.js';
import * as search from './2026-11-23-009-search.js';
import * as modelPrices from './2026-11-23-010-model-prices.js';
import * as runCostSource from './2026-11-24-011-run-cost-source.js';
import * as savedViews from './2026-11-24-012-saved-views.js';
import * as computedCost from './2026-11-26-013-computed-cost.js';
import * as scores from './2026-11-26-014-scores.js';
import * as datasets from './2026-11-26-015-datasets.js';
import * as annotationQueues from './2026-11-26-016-annotation-queues.js';
import * as evaluators from './2026-11-26-017-evaluators.js';
import * as modelConnections from './2026-11-26-018-model-connections.js';
import * as experiments from './2026-11-26-019-experiments.js';
import * as scoreRollups from './2026-11-26-020-score-rollups.js';
import * as monitorScores from './2026-11-26-021-monitor-scores.js';
import * as modelConnectionTestLease from './2026-11-27-022-model-connection-test-lease.js';
import * as traceWideSessions from './2026-11-28-023-trace-wide-sessions.js';
import * as traceRevision from './2026-11-29-024-trace-revision.js';
import * as estimatedTotals from './2026-11-29-025-estimated-totals.js';
import * as runValues from './2026-11-30-026-run-values.js';
import * as experimentTraffic from './2026-11-30-027-experiment-traffic.js';
import * as tokenLimits from './2026-11-30-028-token-limits.js';
import * as auditLog from './2026-11-30-029-audit-log.js';

/** Every migration, in order. Registered explicitly so the build needs no filesystem scanning. */
export const migrations: Record<string, Migration> = {
  '2026-11-22-001-core': core,
  '2026-11-22-002-access': access,
  '2026-11-22-003-prompts': prompts,
  '2026-11-22-004-monitors': monitors,
  '2026-11-22-005-sessions': sessions,
  '2026-11-23-006-run-context': runContext,
  '2026-11-23-008-rollups': rollups,
  '2026-11-23-009-search': search,
  '2026-11-23-010-model-prices': modelPrices,
  '2026-11-24-011-run-cost-source': runCostSource,
  '2026-11-24-012-saved-views': savedViews,
  '2026-11-26-013-computed-cost': computedCost,
  '2026-11-26-014-scores': scores,
  '2026-11-26-015-datasets': datasets,
  '2026-11-26-016-annotation-queues': annotationQueues,
  '2026-11-26-017-evaluators': evaluators,
  '2026-11-26-018-model-connections': modelConnections,
  '2026-11-26-019-experiments': experiments,
  '2026-11-26-020-score-rollups': scoreRollups,
  '2026-11-26-021-monitor-scores': monitorScores,
  '2026-11-27-022-model-connection-test-lease': modelConnectionTestLease,
  '2026-11-28-023-trace-wide-sessions': traceWideSessions,
  '2026-11-29-024-trace-revision': traceRevision,
  '2026-11-29-025-estimated-totals': estimatedTotals,
  '2026-11-30-026-run-values': runValues,
  '2026-11-30-027-experiment-traffic': experimentTraffic,
  '2026-11-30-028-token-limits': tokenLimits,
  '2026-11-30-029-audit-log': auditLog,
};
