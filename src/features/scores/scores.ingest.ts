import type { Kysely } from 'kysely';
import type { Database, ScoreRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { jsonValueFault } from '../../lib/json.js';
import { problems, type FieldError, type Problem } from '../../lib/problems.js';
import { textFaults, toFieldErrors, validatorFor } from '../../lib/validation.js';
import { contentHash } from '../../lib/content-hash.js';
import { configsNamed } from './score-configs.repo.js';
import { deleteScore, existingTargets, insertScores, requireScore, TARGET_NOUN, writeScore } from './scores.repo.js';
import { columnsOf, valueFault, valueOf, type ConfigRule } from './scores.rules.js';
import { ScoreBatchItemSchema, ScoreInputSchema, type ScoreBatchItem, type ScoreUpdate } from './scores.schemas.js';
import type { ScoreTarget } from '../../schemas/records.js';

/** Who gives the scores: a member (or token) of the organization, or an evaluator rule. */
export interface ScoreAuthor {
  organizationId: string;
  projectId: string;
  kind: 'user' | 'rule';
  id: string;
}

export type ScoreResult =
  | { index: number; id: string; status: 'created' | 'existing'; row: ScoreRow | null }
  | { index: number; id: string | null; status: 'rejected'; problem: Problem };

interface Candidate {
  index: number;
  input: ScoreBatchItem;
  target: ScoreTarget;
  targetId: string;
  configKey: { id: string } | { name: string };
}

const TARGET_FIELDS = { runId: 'run', traceId: 'trace', sessionId: 'session' } as const;

/** The schema and the rules a schema cannot say: text, metadata, exactly one target, a name or a config. */
function prepare(raw: unknown, index: number, pointerPrefix: string, fixed: { target: ScoreTarget; targetId: string } | null): Candidate | Problem {
  const schema = fixed ? ScoreInputSchema : ScoreBatchItemSchema;
  const validate = validatorFor(schema);
  if (!validate(raw)) return problems.validation(toFieldErrors(validate.errors ?? [], 'body', pointerPrefix));
  const input = raw as ScoreBatchItem;
  const faults: FieldError[] = textFaults(schema, input, 'body', pointerPrefix);
  if (input.metadata !== undefined) {
    const fault = jsonValueFault(input.metadata, true);
    if (fault) faults.push({ pointer: `${pointerPrefix}/metadata`, detail: fault });
  }
  let target = fixed;
  if (!fixed) {
    const named = (Object.keys(TARGET_FIELDS) as (keyof typeof TARGET_FIELDS)[]).filter((k) => input[k] !== undefined);
    if (named.length !== 1) faults.push({ pointer: `${pointerPrefix}`, detail: 'A score names exactly one of runId, traceId and sessionId.' });
    else target = { target: TARGET_FIELDS[named[0]!], targetId: input[named[0]!]! };
  }
  if (input.name === undefined && input.configId === undefined)
    faults.push({ pointer: `${pointerPrefix}/name`, detail: 'A score has a name, or a configId whose name it takes.' });
  if (faults.length > 0 || !target) return problems.validation(faults);
  return {
    index,
    input,
    ...target,
    configKey: input.configId !== undefined ? { id: input.configId } : { name: input.name! },
  };
}

/** The config that applies to a candidate, or the fault that refuses it. */
function applicableConfig(
  c: Candidate,
  configs: { byId: Map<string, ConfigRule>; byName: Map<string, ConfigRule> },
  pointerPrefix: string,
): ConfigRule | null | Problem {
  if ('id' in c.configKey) {
    const config = configs.byId.get(c.configKey.id);
    if (!config) return problems.validation([{ pointer: `${pointerPrefix}/configId`, detail: `Score config ${c.configKey.id} does not exist.` }]);
    if (c.input.name !== undefined && c.input.name !== config.name)
      return problems.validation([
        { pointer: `${pointerPrefix}/name`, detail: `The score config ${config.id} is named "${config.name}", not "${c.input.name}".` },
      ]);
    return config;
  }
  return configs.byName.get(c.configKey.name) ?? null;
}

/**
 * How scores given in an annotation queue are stored: with the queue's id and source `annotation`; and
 * all or none (`whole`: when any is rejected, none is stored).
 */
export interface IngestOptions {
  queueId?: string;
  whole?: boolean;
}

/**
 * Validates and stores scores, one result per item in order: each is checked on its own (schema,
 * target, config), so one bad score does not sink the others (unless `options.whole`). A score with a
 * client id that the project already has is `existing` when its content is the same, a 409 otherwise;
 * the same id twice in one call shares the first one's fate. `fixed` is the target a path names
 * (`…/runs/{id}/scores`). Given a transaction, it stores within it.
 */
export async function ingestScores(
  db: Kysely<Database>,
  author: ScoreAuthor,
  items: readonly unknown[],
  now: number,
  pointer: (index: number) => string,
  fixed: { target: ScoreTarget; targetId: string } | null = null,
  options: IngestOptions = {},
): Promise<ScoreResult[]> {
  const results: ScoreResult[] = new Array(items.length);
  const candidates: Candidate[] = [];
  items.forEach((raw, index) => {
    const prepared = prepare(raw, index, pointer(index), fixed);
    if ('input' in prepared) candidates.push(prepared);
    else results[index] = { index, id: idOf(raw), status: 'rejected', problem: prepared };
  });

  const configs = await configsNamed(
    db,
    author.organizationId,
    [...new Set(candidates.flatMap((c) => ('id' in c.configKey ? [c.configKey.id] : [])))],
    [...new Set(candidates.flatMap((c) => ('name' in c.configKey ? [c.configKey.name] : [])))],
  );
  const targets = new Map<ScoreTarget, Set<string>>();
  for (const kind of ['run', 'trace', 'session'] as const) {
    const ids = candidates.filter((c) => c.target === kind).map((c) => c.targetId);
    targets.set(kind, await existingTargets(db, author.projectId, kind, ids));
  }

  const rows: { index: number; row: ScoreRow }[] = [];
  for (const c of candidates) {
    const at = pointer(c.index);
    const reject = (problem: Problem) => (results[c.index] = { index: c.index, id: c.input.id ?? null, status: 'rejected', problem });
    if (!targets.get(c.target)!.has(c.targetId)) {
      reject(problems.notFound(`${TARGET_NOUN[c.target]} ${c.targetId} does not exist.`));
      continue;
    }
    const config = applicableConfig(c, configs, at);
    if (config !== null && !('dataType' in config)) {
      reject(config);
      continue;
    }
    const fault = config ? valueFault(c.input.value, config) : null;
    if (fault) {
      reject(problems.validation([{ pointer: `${at}/value`, detail: fault }]));
      continue;
    }
    const name = c.input.name ?? config!.name;
    const source = options.queueId !== undefined ? 'annotation' : (c.input.source ?? 'api');
    const metadata = c.input.metadata ?? {};
    const comment = c.input.comment ?? null;
    const columns = columnsOf(c.input.value);
    rows.push({
      index: c.index,
      row: {
        project_id: author.projectId,
        id: c.input.id ?? newId('scr', now),
        organization_id: author.organizationId,
        target: c.target,
        target_id: c.targetId,
        name,
        ...columns,
        comment,
        source,
        author_kind: author.kind,
        author_id: author.id,
        config_id: config?.id ?? null,
        queue_id: options.queueId ?? null,
        metadata: JSON.stringify(metadata),
        // What a retry is compared by: what the client said, not who sent it or when.
        content_hash: contentHash([c.target, c.targetId, name, c.input.value, comment, source, config?.id ?? null, metadata]),
        created_at: now,
        updated_at: now,
      },
    });
  }

  if (options.whole && results.some((r) => r !== undefined)) return results.filter((r) => r !== undefined);

  // The same id twice in one call: the first goes on, the others share its fate (or clash with it).
  const first = new Map<string, { index: number; row: ScoreRow }>();
  const later: { index: number; row: ScoreRow }[] = [];
  for (const r of rows) {
    if (first.has(r.row.id)) later.push(r);
    else first.set(r.row.id, r);
  }
  const { inserted, stored } = await insertScores(
    db,
    author.projectId,
    [...first.values()].map((r) => r.row),
  );
  const clash = (id: string) => problems.conflict(`Score ${id} already exists with other content.`);
  for (const { index, row } of first.values()) {
    if (inserted.has(row.id)) results[index] = { index, id: row.id, status: 'created', row };
    else if (stored.get(row.id) === row.content_hash) results[index] = { index, id: row.id, status: 'existing', row: null };
    else results[index] = { index, id: row.id, status: 'rejected', problem: clash(row.id) };
  }
  for (const { index, row } of later) {
    const original = results[first.get(row.id)!.index]!;
    results[index] =
      original.status !== 'rejected' && first.get(row.id)!.row.content_hash === row.content_hash
        ? { index, id: row.id, status: 'existing', row: null }
        : { index, id: row.id, status: 'rejected', problem: original.status === 'rejected' ? original.problem : clash(row.id) };
  }
  return results;
}

function idOf(raw: unknown): string | null {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}

/** Who asks to change a score: the author, or an admin, may. */
export interface ScoreEditor {
  organizationId: string;
  projectId: string;
  userId: string;
  mayChangeAny: boolean;
}

async function editable(db: Kysely<Database>, editor: ScoreEditor, id: string): Promise<ScoreRow> {
  const row = await requireScore(db, editor.projectId, id);
  if (!editor.mayChangeAny && !(row.author_kind === 'user' && row.author_id === editor.userId))
    throw problems.forbidden(`Only the author of score ${id} or an admin may change it.`);
  return row;
}

/** A score's new value (checked against its config, as at creation), comment or metadata. */
export async function updateScore(db: Kysely<Database>, editor: ScoreEditor, id: string, patch: ScoreUpdate, now: number): Promise<ScoreRow> {
  const row = await editable(db, editor, id);
  if (patch.metadata !== undefined) {
    const fault = jsonValueFault(patch.metadata, true);
    if (fault) throw problems.validation([{ pointer: '/metadata', detail: fault }]);
  }
  const value = patch.value ?? valueOf(row);
  const configs = await configsNamed(db, editor.organizationId, row.config_id ? [row.config_id] : [], row.config_id ? [] : [row.name]);
  const config = (row.config_id ? configs.byId.get(row.config_id) : configs.byName.get(row.name)) ?? null;
  const fault = config ? valueFault(value, config) : null;
  if (fault) throw problems.validation([{ pointer: '/value', detail: fault }]);
  const comment = patch.comment === undefined ? row.comment : patch.comment;
  const metadata = patch.metadata ?? (JSON.parse(row.metadata) as Record<string, unknown>);
  const columns = columnsOf(value);
  return writeScore(db, row, {
    ...columns,
    comment,
    metadata: JSON.stringify(metadata),
    content_hash: contentHash([row.target, row.target_id, row.name, value, comment, row.source, config?.id ?? null, metadata]),
    updated_at: Math.max(now, Number(row.updated_at)),
    config_id: config?.id ?? null,
  });
}

export async function removeScore(db: Kysely<Database>, editor: ScoreEditor, id: string): Promise<void> {
  await editable(db, editor, id);
  await deleteScore(db, editor.projectId, id);
}
