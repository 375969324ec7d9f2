import type { Kysely } from 'kysely';
import { inProject, type ProjectScope } from '../../db/scope.js';
import { deletedRow, foundRow, unlessTaken, updatedRow } from '../../db/rows.js';
import type { Database, EvaluatorRuleRow } from '../../db/schema.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { keysetPage, type KeysetRows, type Position } from '../../lib/pagination.js';
import { problems } from '../../lib/problems.js';
import { queueFilters } from '../annotations/index.js';
import { builtinFaults, type BuiltinEvaluator } from './evaluators.builtins.js';
import { forgetRules } from './evaluators.sampling.js';
import { MAX_RULES_PER_PROJECT } from './evaluators.rules.js';
import type { CreateRule, Evaluator, EvaluatorFilter, EvaluatorRule, JobCounts, UpdateRule } from './evaluators.schemas.js';

export type RuleWithCounts = EvaluatorRuleRow & { counts: JobCounts; lastError: string | null };

export function toRule(row: RuleWithCounts): EvaluatorRule {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    filter: JSON.parse(row.filter) as Record<string, unknown>,
    sampleRate: Number(row.sample_rate),
    evaluator: JSON.parse(row.evaluator) as EvaluatorRule['evaluator'],
    scoreName: row.score_name,
    enabled: Number(row.enabled) === 1,
    counts: row.counts,
    lastError: row.lastError,
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
  };
}

const missing = (id: string) => problems.notFound(`Evaluator rule ${id} does not exist.`);
const nameTaken = (name: string) => problems.conflict(`The project already has an evaluator rule named "${name}".`);

/** The 400 for what the request schema cannot say: a filter the runs list refuses, an unusable pattern or schema. */
function checkRule(input: { filter?: EvaluatorFilter; evaluator?: Evaluator }): void {
  if (input.filter !== undefined) queueFilters('run', input.filter);
  if (input.evaluator !== undefined && input.evaluator.type !== 'llm_judge') {
    const faults = builtinFaults(input.evaluator as unknown as BuiltinEvaluator);
    if (faults.length > 0) throw problems.validation(faults.map((f) => ({ pointer: `/evaluator/${f.field}`, detail: f.detail })));
  }
}

/** Each rule's jobs by status, and its latest failure: two grouped queries for any number of rules. */
async function withCounts(db: Kysely<Database>, rows: EvaluatorRuleRow[]): Promise<RuleWithCounts[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const counts = new Map<string, JobCounts>(ids.map((id) => [id, { pending: 0, done: 0, failed: 0, skipped: 0 }]));
  const grouped = await db
    .selectFrom('evaluation_jobs')
    .select(['rule_id', 'status', (eb) => eb.fn.countAll().as('count')])
    .where('rule_id', 'in', ids)
    .groupBy(['rule_id', 'status'])
    .execute();
  for (const row of grouped) {
    const of = counts.get(row.rule_id)!;
    if (row.status in of) of[row.status as keyof JobCounts] += Number(row.count);
  }
  const failures = await db
    .selectFrom('evaluation_jobs as j')
    .select(['j.rule_id', 'j.last_error', 'j.updated_at'])
    .where('j.rule_id', 'in', ids)
    .where('j.status', '=', 'failed')
    .where((eb) =>
      eb(
        'j.updated_at',
        '=',
        eb
          .selectFrom('evaluation_jobs as k')
          .select((k) => k.fn.max('k.updated_at').as('m'))
          .whereRef('k.rule_id', '=', 'j.rule_id')
          .where('k.status', '=', 'failed'),
      ),
    )
    .execute();
  const lastError = new Map(failures.map((f) => [f.rule_id, f.last_error]));
  return rows.map((row) => ({ ...row, counts: counts.get(row.id)!, lastError: lastError.get(row.id) ?? null }));
}

export async function listRules(db: Kysely<Database>, scope: ProjectScope, after: Position | null, take: number): Promise<KeysetRows<RuleWithCounts>> {
  const query = db.selectFrom('evaluator_rules').selectAll().where(inProject(scope));
  const page = await keysetPage(query, { sort: 'created_at', id: 'id' }, after, take);
  const rows = await withCounts(db, page.rows);
  return { rows, positionOf: (row) => page.positionOf(row) };
}

export async function requireRule(db: Kysely<Database>, scope: ProjectScope, id: string): Promise<EvaluatorRuleRow> {
  return foundRow(db.selectFrom('evaluator_rules').selectAll().where(inProject(scope)).where('id', '=', id), () => missing(id));
}

export async function ruleWithCounts(db: Kysely<Database>, scope: ProjectScope, id: string): Promise<RuleWithCounts> {
  const [row] = await withCounts(db, [await requireRule(db, scope, id)]);
  return row!;
}

export async function createRule(db: Kysely<Database>, scope: ProjectScope, input: CreateRule, now: number): Promise<RuleWithCounts> {
  checkRule(input);
  const { count } = await db
    .selectFrom('evaluator_rules')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('project_id', '=', scope.projectId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= MAX_RULES_PER_PROJECT) throw problems.conflict(`A project has at most ${MAX_RULES_PER_PROJECT} evaluator rules; delete one first.`);
  const row: EvaluatorRuleRow = {
    id: newId('evr', now),
    organization_id: scope.organizationId,
    project_id: scope.projectId,
    name: input.name,
    filter: JSON.stringify(input.filter ?? {}),
    sample_rate: input.sampleRate ?? 1,
    evaluator: JSON.stringify(input.evaluator),
    score_name: input.scoreName,
    enabled: input.enabled === false ? 0 : 1,
    created_at: now,
    updated_at: now,
  };
  await unlessTaken(db.insertInto('evaluator_rules').values(row).execute(), () => nameTaken(input.name));
  forgetRules(db, scope.projectId);
  return { ...row, counts: { pending: 0, done: 0, failed: 0, skipped: 0 }, lastError: null };
}

export async function updateRule(db: Kysely<Database>, scope: ProjectScope, id: string, patch: UpdateRule, now: number): Promise<RuleWithCounts> {
  checkRule(patch);
  const changes: Partial<EvaluatorRuleRow> = { updated_at: now };
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.filter !== undefined) changes.filter = JSON.stringify(patch.filter);
  if (patch.sampleRate !== undefined) changes.sample_rate = patch.sampleRate;
  if (patch.evaluator !== undefined) changes.evaluator = JSON.stringify(patch.evaluator);
  if (patch.scoreName !== undefined) changes.score_name = patch.scoreName;
  if (patch.enabled !== undefined) changes.enabled = patch.enabled ? 1 : 0;
  const update = db.updateTable('evaluator_rules').set(changes).where(inProject(scope)).where('id', '=', id).returningAll();
  const row = await updatedRow(update, { missing: () => missing(id), taken: () => nameTaken(patch.name ?? '') });
  forgetRules(db, scope.projectId);
  const [updated] = await withCounts(db, [row]);
  return updated!;
}

/** Deletes a rule and (by the foreign key's cascade) its jobs; the scores it gave stay. */
export async function deleteRule(db: Kysely<Database>, scope: ProjectScope, id: string): Promise<void> {
  await deletedRow(db.deleteFrom('evaluator_rules').where(inProject(scope)).where('id', '=', id), () => missing(id));
  forgetRules(db, scope.projectId);
}
