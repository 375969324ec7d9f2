import type { Kysely } from 'kysely';
import { toIso } from '../../lib/clock.js';
import type { Principal } from '../../auth/tokens.js';
import type { Database, ProjectRow } from '../../db/schema.js';
import { Problem, problems } from '../../lib/problems.js';
import { Turns } from '../../lib/turns.js';
import { TRIMMED_TEXT_PATTERN } from '../../schemas/common.js';
import type { RunsStored } from '../../deps.js';
import { ingestRuns, MAX_COST, type IngestResult } from '../runs/index.js';
import { projectNameOf } from './otlp.context.js';
import { type OtlpRequest, type OtlpResource, type PartialSuccess, type SpanRef } from './otlp.decode.js';
import { inheritedOf, mapSpan, resourceOfInTurns, type MappedSpan } from './otlp.map.js';
import { ProjectRouter, type ProjectCreationLimits } from './otlp.projects.js';

const MAX_ERROR_LENGTH = 100_000;
const MAX_TOKENS = 1_000_000_000_000;
const PROJECT_NAME = new RegExp(TRIMMED_TEXT_PATTERN);

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
    ...(span.cost !== null && span.cost <= MAX_COST ? { cost: span.cost } : {}),
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
 * Spans mapped and stored at once. The first chunk has CHUNK_SPANS; then each is sized so the event loop
 * is busy about CHUNK_TURN_MS with it (measured: on SQLite a chunk is one stretch of synchronous work,
 * on PostgreSQL its waits leave the loop free), one of CHUNK_SIZES, and never more than CHUNK_BYTES of
 * protobuf (about the JSON of a full batch): a few large spans make a chunk as well as many small ones.
 * A chunk is a transaction: about as long a turn as a 1,000-run JSON batch takes, since each transaction has a fixed
 * cost (its commit, the search index's new segment, the lookups of a call), which chunks of 25 ms made
 * OTLP pay 16 times per 1,000 spans where the batch API paid it once.
 */
export const CHUNK_SPANS = 125;
/**
 * The sizes a chunk may have: few (each row count is a statement of its own to prepare, and on SQLite to
 * cache), up to the 1,000 runs of a full JSON batch, which an exporter's default batch (512 spans) and
 * two of them fit.
 */
const CHUNK_SIZES = [25, 50, 125, 250, 500, 1000];
const CHUNK_TURN_MS = 200;
const CHUNK_BYTES = 2 * 1024 * 1024;

/** The size the last chunk of any request came to: where the next request starts (the spans of requests are alike). */
let learnedSize = CHUNK_SPANS;

/**
 * The event loop's busy time shared among the chunks being stored at once: on PostgreSQL two requests'
 * chunks interleave (one's waits are the other's turns), and the loop's busy time while both are underway
 * is half each one's, not all of it both's (which halved chunks, and doubled transactions, under load).
 */
class BusyShares {
  private readonly underway = new Set<ChunkSizer>();
  private last = performance.eventLoopUtilization().active;

  enter(sizer: ChunkSizer): void {
    this.settle();
    this.underway.add(sizer);
  }

  leave(sizer: ChunkSizer): void {
    this.settle();
    this.underway.delete(sizer);
  }

  private settle(): void {
    const active = performance.eventLoopUtilization().active;
    const share = (active - this.last) / Math.max(1, this.underway.size);
    this.last = active;
    for (const sizer of this.underway) sizer.busyMs += share;
  }
}

const shares = new BusyShares();

/** How many spans the next chunk takes, from how long the loop was busy with the last one. */
class ChunkSizer {
  size = learnedSize;
  busyMs = 0;

  start(): void {
    this.busyMs = 0;
    shares.enter(this);
  }

  /** Called once a chunk is stored or has failed (`spans` null: the size stays). */
  done(spans: number | null): void {
    shares.leave(this);
    if (spans === null) return;
    const fit = this.busyMs > 0 ? Math.round((spans * CHUNK_TURN_MS) / this.busyMs) : Number.POSITIVE_INFINITY;
    // Grows at most one size a chunk; shrinks at once.
    const most = Math.min(fit, CHUNK_SIZES.find((size) => size > this.size) ?? this.size);
    this.size = learnedSize = CHUNK_SIZES.findLast((size) => size <= most) ?? CHUNK_SIZES[0]!;
  }
}

/**
 * A resource's spans in the order they are stored: each trace's together (in the order traces first
 * appear), and within a trace parents before their children, so a chunk rarely holds a run whose parent
 * is still to come (the pipeline would settle it, at a cost per run). Spans with invalid ids come first;
 * they are refused when mapped.
 */
export function storingOrder(spans: readonly SpanRef[]): SpanRef[] {
  const traces = new Map<string | null, SpanRef[]>([[null, []]]);
  for (const ref of spans) {
    const key = ref.traceId === null || ref.spanId === null || ref.refused !== undefined ? null : ref.traceId;
    const group = traces.get(key);
    if (group) group.push(ref);
    else traces.set(key, [ref]);
  }
  const ordered: SpanRef[] = [];
  for (const [trace, group] of traces) {
    if (trace === null || group.length === 1) {
      ordered.push(...group);
      continue;
    }
    const ids = new Set(group.map((ref) => ref.spanId));
    const children = new Map<string, SpanRef[]>();
    const queue: SpanRef[] = [];
    for (const ref of group) {
      if (ref.parentId === null || ref.parentId === ref.spanId || !ids.has(ref.parentId)) queue.push(ref);
      else {
        const siblings = children.get(ref.parentId);
        if (siblings) siblings.push(ref);
        else children.set(ref.parentId, [ref]);
      }
    }
    const placed = new Set<SpanRef>();
    for (let i = 0; i < queue.length; i++) {
      const ref = queue[i]!;
      placed.add(ref);
      ordered.push(ref);
      const next = children.get(ref.spanId!);
      if (next) {
        children.delete(ref.spanId!);
        queue.push(...next);
      }
    }
    // Parents that form a cycle: their spans keep the request's order (the pipeline refuses the cycle).
    if (placed.size < group.length) for (const ref of group) if (!placed.has(ref)) ordered.push(ref);
  }
  return ordered;
}

/** The next chunk of `ordered` from `at`: `size` spans, fewer when their bytes pass CHUNK_BYTES (never none). */
function chunkAt(ordered: readonly SpanRef[], at: number, size: number): SpanRef[] {
  let end = at;
  let bytes = 0;
  while (end < ordered.length && end - at < size) {
    const ref = ordered[end]!;
    bytes += ref.end - ref.start;
    if (end > at && bytes > CHUNK_BYTES) break;
    end++;
  }
  return ordered.slice(at, end);
}

/**
 * Stores the spans of an OTLP export request as runs, through the runs ingestion (validation,
 * idempotency: a span exported again, same trace and span id, is `existing`; children before parents).
 * Spans that cannot be stored are counted, with the first reason; the rest are stored.
 *
 * The request was read and checked whole before (`readOtlpProtobuf`, `readOtlpJson`), and every
 * resource's project is resolved before any span is stored: a request is refused whole or stored. Then
 * each resource's spans are decoded, mapped and stored a chunk at a time (ChunkSizer, CHUNK_BYTES),
 * the event loop getting a turn between chunks: time and memory grow with the spans and attributes
 * sent, never with their product (a resource's attributes are prepared once for all its spans).
 */
export async function exportTraces(
  db: Kysely<Database>,
  principal: Principal,
  projectHeader: string | undefined,
  request: OtlpRequest,
  now: number,
  limits: ProjectCreationLimits,
  onStored: RunsStored,
): Promise<PartialSuccess | null> {
  const header = projectHeader?.trim();
  if (header !== undefined && (header === '' || header.length > 100 || !PROJECT_NAME.test(header)))
    throw problems.validation([{ parameter: 'Sightline-Project', detail: 'Must be a project id or name (1..100 characters, no control characters).' }]);
  const router = new ProjectRouter(db, principal, now, limits);
  const rejections = new Rejections();
  const turns = new Turns();
  const sizer = new ChunkSizer();

  const routed: { project: ProjectRow; resource: OtlpResource }[] = [];
  for (const resource of request.resources) {
    if (resource.spans.length === 0) continue;
    const name = projectNameOf(header, resource.attributes);
    if (name === null || name.length > 100 || !PROJECT_NAME.test(name)) {
      rejections.add(
        resource.spans.length,
        'No project: send a Sightline-Project header, or a sightline.project or service.name resource attribute (1..100 characters).',
      );
      continue;
    }
    const project = await router.resolve(name);
    if ('refused' in project) rejections.add(resource.spans.length, project.refused);
    else routed.push({ project, resource });
  }

  for (const { project, resource } of routed) {
    const shared = await resourceOfInTurns(resource.attributes, () => turns.breathe());
    const inherited = resource.scopes.map((scope) => inheritedOf(shared, scope));
    const ordered = storingOrder(resource.spans);
    resource.spans = [];
    for (let at = 0; at < ordered.length;) {
      const chunk = chunkAt(ordered, at, sizer.size);
      at += chunk.length;
      sizer.start();
      let results: IngestResult[];
      try {
        const runs: Record<string, unknown>[] = [];
        for (const ref of chunk) {
          if (ref.refused !== undefined) {
            rejections.add(1, ref.refused);
            continue;
          }
          const mapped = mapSpan(resource.span(ref), inherited[ref.scope]!);
          if ('rejected' in mapped) rejections.add(1, mapped.rejected);
          else runs.push(runInputOf(mapped));
        }
        results = await ingestRuns(db, project.id, runs, now, () => '', onStored, 'span');
      } catch (error) {
        sizer.done(null);
        throw error;
      }
      sizer.done(chunk.length);
      for (const result of results) if (result.status === 'rejected') rejections.add(1, reasonOf(result.id, result.problem));
      await turns.breathe();
    }
  }
  return rejections.result();
}
