import type { ListOptions, Paginated } from './pagination.js';
import { Resource, seg, type CallOptions } from './resource.js';
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

/** `/v1/projects/{id}/monitors`. */
export class MonitorsResource extends Resource {
  list(projectId: string, filters: MonitorFilters = {}, options: ListOptions = {}): Paginated<Monitor> {
    return this.paginate<Monitor>(`/projects/${seg(projectId)}/monitors`, filters, options);
  }
  /** Creates a monitor; the answer's `webhookSecret` is shown only here. */
  create(projectId: string, body: CreateMonitorInput, options: CallOptions = {}): Promise<MonitorWithSecret> {
    return this.send('POST', `/projects/${seg(projectId)}/monitors`, body, options);
  }
  get(projectId: string, monitorId: string, options: CallOptions = {}): Promise<Monitor> {
    return this.read(`/projects/${seg(projectId)}/monitors/${seg(monitorId)}`, options);
  }
  /** Edits, pauses (`enabled: false`) or resumes a monitor. */
  update(projectId: string, monitorId: string, body: UpdateMonitorInput, options: CallOptions = {}): Promise<Monitor> {
    return this.send('PATCH', `/projects/${seg(projectId)}/monitors/${seg(monitorId)}`, body, options);
  }
  async delete(projectId: string, monitorId: string, options: CallOptions = {}): Promise<void> {
    await this.deleteAt(`/projects/${seg(projectId)}/monitors/${seg(monitorId)}`, options);
  }
  /** The metric over time (default: the last 24 windows) and its current value and state. */
  metrics(projectId: string, monitorId: string, query: MonitorMetricsQuery = {}, options: CallOptions = {}): Promise<MonitorMetrics> {
    return this.read(`/projects/${seg(projectId)}/monitors/${seg(monitorId)}/metrics`, options, query);
  }
  /** State changes, newest first. */
  events(projectId: string, monitorId: string, options: ListOptions = {}): Paginated<MonitorEvent> {
    return this.paginate<MonitorEvent>(`/projects/${seg(projectId)}/monitors/${seg(monitorId)}/events`, {}, options);
  }
  /** Webhook delivery attempts, newest first. */
  deliveries(projectId: string, monitorId: string, options: ListOptions = {}): Paginated<WebhookAttempt> {
    return this.paginate<WebhookAttempt>(`/projects/${seg(projectId)}/monitors/${seg(monitorId)}/deliveries`, {}, options);
  }
  /** A new webhook signing secret, shown only in this answer. */
  rotateSecret(projectId: string, monitorId: string, options: CallOptions = {}): Promise<MonitorWithSecret> {
    return this.send('POST', `/projects/${seg(projectId)}/monitors/${seg(monitorId)}/rotate-secret`, undefined, options);
  }
}
