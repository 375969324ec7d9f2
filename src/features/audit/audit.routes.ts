import type { App, Deps } from '../../deps.js';
import { requireTimestamp } from '../../lib/clock.js';
import { problems } from '../../lib/problems.js';
import { routeKit } from '../route-kit.js';
import { listAudit, purgeAudit, toAuditEvent } from './audit.repo.js';
import { AuditPage, ListAuditQuery } from './audit.schemas.js';

const HOUR_MS = 3_600_000;

export function auditRoutes(app: App, { db, cursors, clock, config }: Deps): void {
  const route = routeKit(app, { tags: ['Organization'], cursors });

  // Retention: events older than SIGHTLINE_AUDIT_RETENTION_DAYS go, a batch at a time, at start and every hour
  // (on every instance: deleting what another deleted is nothing).
  const purge = async () => {
    const before = clock.now() - config.auditRetentionDays * 86_400_000;
    try {
      while ((await purgeAudit(db, before)) > 0) await new Promise((resolve) => setImmediate(resolve));
    } catch (error) {
      app.log.warn({ err: error }, 'audit log retention failed; tried again in an hour');
    }
  };
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    void purge();
    timer = setInterval(() => void purge(), HOUR_MS).unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));

  route.page(
    '/organization/audit-log',
    {
      scope: 'organization:admin',
      operationId: 'listAuditEvents',
      summary: "The organization's audit log",
      description:
        'Security-relevant events, newest first: sign-ins, tokens minted, rotated, revoked and reuse detected, members added, removed and their role changes, ' +
        'invitations, the organization’s name and allowed origins, model connections, project deletion (docs/tokens-and-access.md, Audit log). ' +
        'Each is written in the transaction of the change it records and never holds a secret. Filters: `action`, `actorId` (a user), `from` and `to` (`[from, to)`). ' +
        'Kept SIGHTLINE_AUDIT_RETENTION_DAYS (400 by default).',
      querystring: ListAuditQuery,
      page: AuditPage,
    },
    async ({ principal: { organizationId }, query: { limit: _limit, cursor: _cursor, ...filters } }) => {
      const from = filters.from === undefined ? undefined : requireTimestamp(filters.from, { parameter: 'from' });
      const to = filters.to === undefined ? undefined : requireTimestamp(filters.to, { parameter: 'to' });
      if (from !== undefined && to !== undefined && from >= to) throw problems.validation([{ parameter: 'from', detail: 'from must be before to.' }]);
      return {
        identity: { endpoint: 'audit-log', organizationId, filters },
        fetch: (after, take) => listAudit(db, organizationId, { action: filters.action, actorId: filters.actorId, from, to }, after, take),
      };
    },
    toAuditEvent,
  );
}
