import type { ListOptions, Paginated } from './pagination.js';
import { ProjectCollection, type CallOptions } from './resource.js';
import type {
  CreateMonitorInput,
  Monitor,
  MonitorEvent,
  MonitorFilters,
  MonitorMetrics,
  MonitorMetricsQuery,
  MonitorWithSecret,
  UpdateMonitorInput,
  WebhookAttempt,
} from './types.js';

/**
 * `/v1/projects/{id}/monitors`. A create answers with the monitor's `webhookSecret`, shown only there; an
 * update edits, pauses (`enabled: false`) or resumes a monitor.
 */
export class MonitorsResource extends ProjectCollection<Monitor, CreateMonitorInput, UpdateMonitorInput, MonitorFilters, MonitorWithSecret> {
  protected readonly name = 'monitors';
  /** The metric over time (default: the last 24 windows) and its current value and state. */
  metrics(projectId: string, monitorId: string, query: MonitorMetricsQuery = {}, options: CallOptions = {}): Promise<MonitorMetrics> {
    return this.read(`${this.at(projectId, monitorId)}/metrics`, options, query);
  }
  /** State changes, newest first. */
  events(projectId: string, monitorId: string, options: ListOptions = {}): Paginated<MonitorEvent> {
    return this.paginate<MonitorEvent>(`${this.at(projectId, monitorId)}/events`, {}, options);
  }
  /** Webhook delivery attempts, newest first. */
  deliveries(projectId: string, monitorId: string, options: ListOptions = {}): Paginated<WebhookAttempt> {
    return this.paginate<WebhookAttempt>(`${this.at(projectId, monitorId)}/deliveries`, {}, options);
  }
  /** A new webhook signing secret, shown only in this answer. */
  rotateSecret(projectId: string, monitorId: string, options: CallOptions = {}): Promise<MonitorWithSecret> {
    return this.send('POST', `${this.at(projectId, monitorId)}/rotate-secret`, undefined, options);
  }
}
