/**
 * Wire types: derived from the server's own schemas (type-only imports, erased from the bundle), so the
 * dashboard cannot drift from the API.
 */
import type { Static } from '@sinclair/typebox';
import type { MonitorEventSchema, MonitorMetricsSchema, MonitorSchema, WebhookAttemptSchema } from '../../src/features/monitors/monitors.schemas.js';
import type { ProjectSchema } from '../../src/features/projects/projects.schemas.js';
import type { LabelEventSchema, PromptSchema, PromptVersionSchema } from '../../src/features/prompts/prompts.schemas.js';
import type { RunMetricsSchema, RunSchema } from '../../src/features/runs/runs.schemas.js';
import type { Role } from '../../src/auth/roles.js';
import type { MeSchema } from '../../src/features/me/me.schemas.js';

export type { Role };
export type Project = Static<typeof ProjectSchema>;
export type Run = Static<typeof RunSchema>;
export type RunMetrics = Static<typeof RunMetricsSchema>;
export type Prompt = Static<typeof PromptSchema>;
export type PromptVersion = Static<typeof PromptVersionSchema>;
export type LabelEvent = Static<typeof LabelEventSchema>;
export type Monitor = Static<typeof MonitorSchema>;
export type MonitorEvent = Static<typeof MonitorEventSchema>;
export type MonitorMetrics = Static<typeof MonitorMetricsSchema>;
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

export type Me = Static<typeof MeSchema>;
