import type { Static } from '@sinclair/typebox';
import type { App, Deps } from '../../deps.js';
import type { Monitoring } from './monitors.service.js';
import { requireTimestamp, toIso } from '../../lib/clock.js';
import { problems } from '../../lib/problems.js';
import { childList } from '../page-route.js';
import { routeKit } from '../route-kit.js';
import { requestedProject, requireProject } from '../projects/index.js';
import { bucketStart, metricsRangeFaults } from '../query/index.js';
import { definitionOf, evaluate, measure } from './monitors.evaluate.js';
import { deleteMonitor, listEvents, listMonitors, requireMonitor, toEvent, toMonitor } from './monitors.repo.js';
import { listAttempts, toAttempt } from './monitors.webhooks.repo.js';
import {
  CreateMonitorBody,
  ListMonitorsQuery,
  MONITOR_BUCKETS,
  MonitorEventPage,
  MonitorMetricsQuery,
  MonitorMetricsSchema,
  MonitorPage,
  MonitorParams,
  MonitorWithSecretSchema,
  UpdateMonitorBody,
  WebhookAttemptPage,
} from './monitors.schemas.js';
import { ProjectParams } from '../../schemas/records.js';

const tags = ['Monitors'];
const DEFAULT_BUCKETS = 24;

/** `monitoring`: the instance's monitor evaluator and webhook deliverer, which the routes create, change and read through. */
export function monitorRoutes(app: App, { db, dialect, clock, cursors }: Deps, monitoring: Monitoring): void {
  const load = async (organizationId: string, projectId: string, monitorId: string) => {
    const project = await requireProject(db, organizationId, projectId);
    return requireMonitor(db, project.id, monitorId);
  };

  const route = routeKit(app, { tags, cursors });

  route.page(
    '/projects/:project_id/monitors',
    {
      scope: 'monitors:read',
      operationId: 'listMonitors',
      summary: 'List monitors',
      description: 'Newest first (by creation). Filters: `state`, `enabled`.',
      params: ProjectParams,
      querystring: ListMonitorsQuery,
      page: MonitorPage,
    },
    async ({ principal: { organizationId }, params, query: { limit: _limit, cursor: _cursor, ...filters } }) => {
      const project = await requireProject(db, organizationId, params.project_id);
      return {
        identity: { endpoint: 'monitors', organizationId, parents: [project.id], filters },
        fetch: (after, take) => listMonitors(db, project.id, filters, after, take),
      };
    },
    toMonitor,
  );

  route.create(
    '/projects/:project_id/monitors',
    {
      scope: 'monitors:write',
      operationId: 'createMonitor',
      summary: 'Create a monitor',
      description:
        'A runs filter (the list’s filter names), a metric over a window, and an optional threshold. The monitor is evaluated at once and then on a schedule. ' +
        'The answer carries `webhookSecret`, the HMAC-SHA256 key of its webhook signatures, shown only here.',
      params: ProjectParams,
      body: CreateMonitorBody,
      answer: MonitorWithSecretSchema,
    },
    async (request) => {
      const project = await requestedProject(db, request);
      const { row, secret } = await monitoring.create(project.id, request.body);
      return { ...toMonitor(row), webhookSecret: secret };
    },
  );

  route.get(
    '/projects/:project_id/monitors/:monitor_id',
    {
      scope: 'monitors:read',
      operationId: 'getMonitor',
      summary: 'Get a monitor',
      description: 'A monitor due for evaluation is evaluated before it is returned.',
      params: MonitorParams,
      answer: 'Monitor',
    },
    async (request) => toMonitor(await monitoring.fresh(await load(request.principal.organizationId, request.params.project_id, request.params.monitor_id))),
  );

  route.patch(
    '/projects/:project_id/monitors/:monitor_id',
    {
      scope: 'monitors:write',
      operationId: 'updateMonitor',
      summary: 'Update, pause or resume a monitor',
      description: '`enabled: false` pauses it (state `no_data`); `enabled: true` resumes it. A changed definition is re-evaluated at once.',
      params: MonitorParams,
      body: UpdateMonitorBody,
      answer: 'Monitor',
    },
    async (request) => {
      const project = await requestedProject(db, request);
      return toMonitor(await monitoring.update(project.id, request.params.monitor_id, request.body));
    },
  );

  route.delete(
    '/projects/:project_id/monitors/:monitor_id',
    {
      scope: 'monitors:delete',
      operationId: 'deleteMonitor',
      summary: 'Delete a monitor',
      description: 'With its events and webhook deliveries.',
      params: MonitorParams,
    },
    async (request) => {
      const project = await requestedProject(db, request);
      await deleteMonitor(db, project.id, request.params.monitor_id);
    },
  );

  route.post(
    '/projects/:project_id/monitors/:monitor_id/rotate-secret',
    {
      scope: 'monitors:write',
      operationId: 'rotateMonitorSecret',
      summary: 'Replace the webhook signing secret',
      description: 'The new secret is shown only in this answer; deliveries from now on are signed with it.',
      params: MonitorParams,
      answer: MonitorWithSecretSchema,
    },
    async (request) => {
      const project = await requestedProject(db, request);
      const { row, secret } = await monitoring.rotateSecret(project.id, request.params.monitor_id);
      return { ...toMonitor(row), webhookSecret: secret };
    },
  );

  route.get(
    '/projects/:project_id/monitors/:monitor_id/metrics',
    {
      scope: 'monitors:read',
      operationId: 'getMonitorMetrics',
      summary: "A monitor's metric over time",
      description:
        'The metric over UTC-aligned buckets of [from, to) (default: the last 24 buckets of the monitor’s window, the last one running up to now), ' +
        'counting exactly the runs the runs list returns for the monitor’s filter (score metrics: the scores GET …/scores/metrics counts, `count` being how many); `current` is the metric over the latest window and the state it gives.',
      params: MonitorParams,
      querystring: MonitorMetricsQuery,
      answer: MonitorMetricsSchema,
    },
    async (request) => {
      const row = await monitoring.fresh(await load(request.principal.organizationId, request.params.project_id, request.params.monitor_id));
      const monitor = definitionOf(row);
      const bucket = request.query.bucket ?? monitor.window;
      const bucketMs = MONITOR_BUCKETS[bucket];
      const now = clock.now();
      const to = request.query.to === undefined ? now : requireTimestamp(request.query.to, { parameter: 'to' });
      const from =
        request.query.from === undefined
          ? bucketStart(to - 1, bucketMs) - (DEFAULT_BUCKETS - 1) * bucketMs
          : requireTimestamp(request.query.from, { parameter: 'from' });
      const faults = metricsRangeFaults(from, to, bucketMs);
      if (faults.length > 0) throw problems.validation(faults);
      const [measured, current] = await Promise.all([measure(db, dialect, monitor, from, to, bucketMs), evaluate(db, dialect, monitor, now)]);
      return {
        monitorId: row.id,
        metric: monitor.metric,
        from: toIso(from),
        to: toIso(to),
        bucket,
        series: [...measured.buckets].map(([start, { value, count }]) => ({ start: toIso(start), value, count })),
        current: {
          value: current.value,
          count: current.count,
          state: current.state,
          windowStart: toIso(current.windowStart),
          windowEnd: toIso(current.windowEnd),
        },
      };
    },
  );

  /** A monitor's child lists (events, delivery attempts) are bound to the monitor and its project. */
  const monitorOf = async (organizationId: string, params: Static<typeof MonitorParams>) => {
    const monitor = await load(organizationId, params.project_id, params.monitor_id);
    return { id: monitor.id, parents: [monitor.project_id, monitor.id] };
  };

  route.page(
    '/projects/:project_id/monitors/:monitor_id/events',
    {
      scope: 'monitors:read',
      operationId: 'listMonitorEvents',
      summary: "A monitor's state changes",
      description: 'Newest first. Every change of `state` is recorded, with the value and count that caused it.',
      params: MonitorParams,
      page: MonitorEventPage,
    },
    childList('monitor-events', monitorOf, (monitorId, after, take) => listEvents(db, monitorId, after, take)),
    toEvent,
  );

  route.page(
    '/projects/:project_id/monitors/:monitor_id/deliveries',
    {
      scope: 'monitors:read',
      operationId: 'listMonitorDeliveries',
      summary: "A monitor's webhook delivery attempts",
      description: 'Newest first: every attempt to deliver an event to a webhook URL, with the response status and latency, and whether it will be retried.',
      params: MonitorParams,
      page: WebhookAttemptPage,
    },
    childList('monitor-deliveries', monitorOf, (monitorId, after, take) => listAttempts(db, monitorId, after, take)),
    toAttempt,
  );
}
