export { purgeAudit } from './audit.repo.js';
export { auditRoutes } from './audit.routes.js';
export { AuditEventSchema } from './audit.schemas.js';
