import type { Kysely } from 'kysely';
import { toIso } from '../../lib/clock.js';
import { can } from '../../auth/roles.js';
import type { Principal } from '../../auth/tokens.js';
import type { Database, ProjectRow } from '../../db/schema.js';
import { Problem, problems } from '../../lib/problems.js';
import { TRIMMED_TEXT_PATTERN } from '../../schemas/common.js';
import { createProject, findProject } from '../projects/projects.repo.js';
import { ingestRuns } from '../runs/runs.ingest.js';
import { projectNameOf } from './otlp.context.js';
import { attributesToJson, type ExportTraceServiceRequest, type OtlpSpan, type PartialSuccess } from './otlp.decode.js';
import { mapSpan, type MappedSpan } from './otlp.map.js';

const MAX_ERROR_LENGTH = 100_000;
const MAX_TOKENS = 1_000_000_000_000;
const PROJECT_NAME = new RegExp(TRIMMED_TEXT_PATTERN);
/** A project id (never taken as the name of a project to create). */
const PROJECT_ID = /^prj_[0-9a-z]{26}$/;

const USAGE_DETAILS = ['totalTokens', 'cacheReadTokens', 'cacheCreationTokens', 'reasoningTokens'] as const;

const tokenCount = (value: number | null | undefined) => (Number.isSafeInteger(value) && value! >= 0 && value! <= MAX_TOKENS ? value! : undefined);

/** A mapped span as the runs API takes it: from here on, spans go through the one ingestion pipeline. */
export function runInputOf(span: MappedSpan): Record<string, unknown> {
  const usage = span.usage;
  const prompt = tokenCount(usage?.inputTokens);
  const completion = tokenCount(usage?.outputTokens);
  // Counts the engines cannot store exactly are left out of usage; their attributes stay in metadata.
  let counts: Record<string, number> | null = null;
  if (prompt !== undefined && completion !== undefined) {
    counts = { promptTokens: prompt, completionTokens: completion };
    for (const key of USAGE_DETAILS) {
      const count = tokenCount(usage![key]);
      if (count !== undefined) counts[key] = count;
    }
  }
  const ended = span.endTime !== null;
  return {
    id: span.id,
    traceId: span.traceId,
    parentRunId: span.parentRunId,
    name: span.name,
    kind: span.kind,
    // A span is exported once it has ended; one without an end is still running.
    status: ended ? span.status : 'running',
    startTime: toIso(span.startTime),
    endTime: ended ? toIso(span.endTime!) : null,
    inputs: span.inputs ?? {},
    outputs: span.outputs ?? null,
    error: ended && span.status === 'failed' ? (span.error ?? '').slice(0, MAX_ERROR_LENGTH) || null : null,
    model: span.model,
    provider: span.provider,
    usage: counts,
    tags: span.tags,
    metadata: span.metadata,
    sessionId: span.sessionId,
    userId: span.userId,
  };
}

/** Counts what was not stored, and keeps the first reason (OTLP's `partialSuccess`). */
class Rejections {
  count = 0;
  private first = '';

  add(count: number, reason: string): void {
    if (count === 0) return;
    if (this.count === 0) this.first = reason;
    this.count += count;
  }

  result(): PartialSuccess | null {
    return this.count === 0 ? null : { rejectedSpans: this.count, errorMessage: this.first };
  }
}

function reasonOf(spanId: string | null, problem: Problem): string {
  const fault = problem.errors?.[0];
  const where = fault?.pointer ? ` at ${fault.pointer}` : '';
  return `Span ${spanId ?? '(no id)'} was not stored${where}: ${fault?.detail ?? problem.detail}`;
}

/**
 * The project of each resource's spans, created on first use when the caller may create projects
 * (else 404). A project named by the header must exist or be creatable too; names that no project
 * could have are the resource's spans' rejection reason, or for the header a 400 problem.
 */
class ProjectRouter {
  private readonly known = new Map<string, ProjectRow>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly principal: Principal,
    private readonly now: number,
  ) {}

  async resolve(name: string): Promise<ProjectRow> {
    const key = name.toLowerCase();
    const cached = this.known.get(key) ?? this.known.get(name);
    if (cached) return cached;
    const { organizationId, role } = this.principal;
    let project = await findProject(this.db, organizationId, name);
    if (!project && PROJECT_ID.test(name)) throw problems.notFound(`Project ${name} does not exist.`);
    if (!project) {
      if (!can(role, 'projects:write')) throw problems.notFound(`Project ${name} does not exist, and your role (${role}) cannot create it.`);
      try {
        project = await createProject(this.db, organizationId, { name }, this.now);
      } catch (error) {
        // Created meanwhile by a concurrent export.
        project = await findProject(this.db, organizationId, name);
        if (!project) throw error;
      }
    }
    this.known.set(name, project);
    this.known.set(key, project);
    return project;
  }
}

/**
 * Stores the spans of an OTLP export request as runs, through the runs ingestion (validation,
 * idempotency: a span exported again, same trace and span id, is `existing`; children before parents). Spans that cannot be
 * stored are counted, with the first reason; the rest are stored.
 */
export async function exportTraces(
  db: Kysely<Database>,
  principal: Principal,
  projectHeader: string | undefined,
  request: ExportTraceServiceRequest,
  now: number,
): Promise<PartialSuccess | null> {
  const header = projectHeader?.trim();
  if (header !== undefined && (header === '' || header.length > 100 || !PROJECT_NAME.test(header)))
    throw problems.validation([{ parameter: 'Sightline-Project', detail: 'Must be a project id or name (1..100 characters, no control characters).' }]);
  const router = new ProjectRouter(db, principal, now);
  const rejections = new Rejections();
  // Each span becomes the run the pipeline takes as soon as it is mapped: what was decoded is not held
  // while the runs are stored.
  const byProject = new Map<string, { project: ProjectRow; runs: Record<string, unknown>[] }>();

  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesToJson(resourceSpans.resource?.attributes);
    // What every span of a scope shares: its resource's attributes and the scope's name and version.
    const spans: { span: OtlpSpan; shared: Record<string, unknown> }[] = [];
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = scopeSpans.scope?.name ? { 'otel.scope.name': scopeSpans.scope.name, 'otel.scope.version': scopeSpans.scope.version || undefined } : {};
      const shared = { ...resource, ...scope };
      for (const span of scopeSpans.spans ?? []) spans.push({ span, shared });
      scopeSpans.spans = null; // held from here on by `spans` alone, and let go span by span as mapped
    }
    if (spans.length === 0) continue;
    const name = projectNameOf(header, resource);
    if (name === null || name.length > 100 || !PROJECT_NAME.test(name)) {
      rejections.add(
        spans.length,
        'No project: send a Sightline-Project header, or a sightline.project or service.name resource attribute (1..100 characters).',
      );
      continue;
    }
    const project = await router.resolve(name);
    const group = byProject.get(project.id) ?? { project, runs: [] };
    byProject.set(project.id, group);
    for (let i = 0; i < spans.length; i++) {
      const { span, shared } = spans[i]!;
      spans[i] = null!;
      const mapped = mapSpan(span, shared);
      if ('rejected' in mapped) rejections.add(1, mapped.rejected);
      else group.runs.push(runInputOf(mapped));
    }
  }

  for (const { project, runs } of byProject.values()) {
    const results = await ingestRuns(db, project.id, runs, now, () => '', 'span');
    for (const result of results) if (result.status === 'rejected') rejections.add(1, reasonOf(result.id, result.problem));
  }
  return rejections.result();
}
