// The face of features/query/: what other features and buildApp use of it. Import it from here only
// (ESLint: sightline/tiers); everything else in the folder is its own business.
export { Accumulator, type Aggregate, aggregateOf, aggregateRuns, emptyAggregate, postgresAggregates } from './aggregate.js';
export { METADATA_KEY_PATTERN, metadataFilters, runFilterProperties, scoreFilter } from './filters.schemas.js';
export { experimentMatch, experimentTraces, traceExperimentIs } from './experiment.js';
export { parseRunFilters, type RunFilters, runFilterWhere } from './filters.js';
export { type FilteredList, filteredListRequest } from './list-request.js';
export { bucketStart, type MetricInputs, metricsRangeFaults } from './metrics.rules.js';
export { type Bucket, metricsSchema, metricsWindowProperties, RunMetricsQuery, RunMetricsSchema } from './metrics.schemas.js';
export { bucketStarts, metricsGroups, metricValues, metricsWindow, runMetrics } from './metrics.js';
export { planList } from './score-plan.js';
export { scoreSummaries, scoredColumn, scoredIds, type ScoreSummary, withScoresBody, withScoresText, withSummaries } from './score-summaries.js';
export { forgetProjectWords, indexRuns, planSearch, queryWords, type SearchPlan, searchText } from './search.js';
export { firstWindow, searchKeyColumn, type Stream, walkMatches } from './search-walk.js';
