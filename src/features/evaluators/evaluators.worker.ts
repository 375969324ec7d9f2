import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Deps } from '../../deps.js';
import type { Database, EvaluationJobRow, EvaluatorRuleRow } from '../../db/schema.js';
import { Problem } from '../../lib/problems.js';
import { leaseTokens } from '../../db/leases.js';
import { parseRunFilters, runFilterWhere } from '../query/index.js';
import { toRun } from '../runs/index.js';
import { ingestScores } from '../scores/index.js';
import { evaluateBuiltin, expectedOf, NotApplicable, textOf, type BuiltinEvaluator, type Verdict } from './evaluators.builtins.js';
import { claimJobs, settleJob } from './evaluators.jobs.js';
import { judgeRun, JudgeFailure } from './evaluators.judge.js';
import { JOB_BATCH, JOB_CONCURRENCY, MAX_ATTEMPTS, retryDelay, UNFINISHED_WAIT_MS, WAIT_RETRY_MS } from './evaluators.rules.js';
import type { Evaluator } from './evaluators.schemas.js';

/** Rounds of claiming in one pass (each up to JOB_BATCH jobs), so a pass ends even while runs keep coming. */
const MAX_ROUNDS = 10;
/** The longest one evaluation may take (an LLM judge's call included). */
const EVALUATION_TIMEOUT_MS = 60_000;

/** The score a rule gives a run has an id of its own (a hash of both): a run is scored once by a rule, whoever writes it. */
export function scoreIdOf(ruleId: string, runId: string): string {
  return `scr_${createHash('sha256').update(ruleId).update('\u0000').update(runId).digest('hex').slice(0, 26)}`;
}

type Outcome =
  | { kind: 'done'; verdict: { value: number | boolean | string; comment: string | null } }
  | { kind: 'skipped'; reason: string }
  | { kind: 'wait' }
  | { kind: 'error'; message: string; retryable: boolean };

/**
 * The background evaluation of sampled runs, on every instance: each pass claims due jobs under leases
 * (evaluators.jobs.ts), evaluates at most JOB_CONCURRENCY at once, and writes each verdict as a score
 * (source `evaluator`, author the rule) with the job's new state in one transaction. Bounded: a pass
 * claims at most MAX_ROUNDS × JOB_BATCH jobs; a job is tried MAX_ATTEMPTS times, with backoff, then
 * `failed` with its last error; a run that is still running is waited for UNFINISHED_WAIT_MS, then
 * `skipped`. Stopping aborts evaluations in flight (their jobs' leases run out and they are tried again).
 */
export class EvaluationWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private readonly stopping = new AbortController();
  private readonly leaseToken = leaseTokens();

  constructor(
    private readonly deps: Deps,
    private readonly intervalMs: number,
    public log: FastifyBaseLogger | null,
  ) {}

  private get db(): Kysely<Database> {
    return this.deps.db;
  }

  /** One pass: claims and evaluates due jobs until none are left (or MAX_ROUNDS). Returns how many jobs it settled. */
  runDue(): Promise<number> {
    if (this.running) return this.running;
    this.running = (async () => {
      let settled = 0;
      try {
        for (let round = 0; round < MAX_ROUNDS && !this.stopping.signal.aborted; round++) {
          const token = this.leaseToken();
          const jobs = await claimJobs(this.db, this.deps.dialect, token, this.deps.clock.now(), JOB_BATCH);
          settled += await this.evaluateAll(jobs, token);
          if (jobs.length < JOB_BATCH) break;
        }
      } catch (error) {
        this.log?.error({ err: error }, 'evaluation pass failed');
      } finally {
        this.running = null;
      }
      return settled;
    })();
    return this.running;
  }

  private async evaluateAll(jobs: EvaluationJobRow[], token: string): Promise<number> {
    const rules = new Map<string, EvaluatorRuleRow | undefined>();
    const ruleIds = [...new Set(jobs.map((j) => j.rule_id))];
    if (ruleIds.length > 0)
      for (const rule of await this.db.selectFrom('evaluator_rules').selectAll().where('id', 'in', ruleIds).execute()) rules.set(rule.id, rule);
    let next = 0;
    let settled = 0;
    const lane = async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        try {
          if (await this.settle(job, rules.get(job.rule_id), token)) settled++;
        } catch (error) {
          // Its lease runs out and another pass tries it again.
          this.log?.error({ err: error, ruleId: job.rule_id, runId: job.run_id }, 'evaluation job failed to settle');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(JOB_CONCURRENCY, jobs.length) }, lane));
    return settled;
  }

  private async settle(job: EvaluationJobRow, rule: EvaluatorRuleRow | undefined, token: string): Promise<boolean> {
    if (!rule) return false; // deleted meanwhile: its jobs went with it
    const outcome = await this.evaluate(job, rule);
    const now = this.deps.clock.now();
    switch (outcome.kind) {
      case 'wait':
        return settleJob(this.db, job, token, { next_attempt_at: now + WAIT_RETRY_MS, updated_at: now });
      case 'skipped':
        return settleJob(this.db, job, token, { status: 'skipped', last_error: outcome.reason, updated_at: now });
      case 'error': {
        const attempts = Number(job.attempts) + 1;
        const final = !outcome.retryable || attempts >= MAX_ATTEMPTS;
        return settleJob(this.db, job, token, {
          status: final ? 'failed' : 'pending',
          attempts,
          next_attempt_at: final ? Number(job.next_attempt_at) : now + retryDelay(attempts),
          last_error: outcome.message,
          updated_at: now,
        });
      }
      case 'done':
        return this.record(job, rule, token, outcome.verdict, now);
    }
  }

  /** The score and the job's new state, in one transaction: a worker that lost its lease writes neither. */
  private async record(
    job: EvaluationJobRow,
    rule: EvaluatorRuleRow,
    token: string,
    verdict: { value: number | boolean | string; comment: string | null },
    now: number,
  ): Promise<boolean> {
    const scoreId = scoreIdOf(rule.id, job.run_id);
    const refused = await this.db
      .transaction()
      .execute(async (trx) => {
        const [result] = await ingestScores(
          trx,
          { organizationId: rule.organization_id, projectId: rule.project_id, kind: 'rule', id: rule.id },
          [{ id: scoreId, runId: job.run_id, name: rule.score_name, value: verdict.value, comment: verdict.comment, source: 'evaluator' }],
          now,
          () => '',
        );
        if (result!.status === 'rejected') return result!.problem;
        if (!(await settleJob(trx, job, token, { status: 'done', attempts: Number(job.attempts) + 1, score_id: scoreId, last_error: null, updated_at: now })))
          throw new LeaseLost();
        return null;
      })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) return undefined;
        throw error;
      });
    if (refused === undefined) return false;
    if (refused === null) return true;
    // The score was refused (a score config of that name wants another type or range): trying again changes nothing.
    const detail = [refused.detail, ...(refused.errors ?? []).map((e) => e.detail)].filter(Boolean).join(' ');
    return settleJob(this.db, job, token, {
      status: 'failed',
      attempts: Number(job.attempts) + 1,
      last_error: `The score was refused: ${detail}`,
      updated_at: now,
    });
  }

  /** What to do with a claimed job: its run must exist, be finished and match the rule's filter; then the evaluator's verdict. */
  private async evaluate(job: EvaluationJobRow, rule: EvaluatorRuleRow): Promise<Outcome> {
    const filters = parseRunFilters(JSON.parse(rule.filter) as Record<string, unknown>);
    // The runs list's own filter code, restricted to this run.
    const thisRun = () =>
      this.db.selectFrom('runs').select(['runs.status', 'runs.doc']).where('runs.project_id', '=', rule.project_id).where('runs.id', '=', job.run_id);
    const filtered = Object.keys(filters).length > 0;
    const matched = await (filtered ? thisRun().where(runFilterWhere(this.deps.dialect, filters)) : thisRun()).executeTakeFirst();
    if (!matched) {
      const stored = filtered ? await thisRun().executeTakeFirst() : undefined;
      if (!stored) return { kind: 'skipped', reason: 'The run no longer exists.' };
      if (stored.status === 'running') return this.waitOrGiveUp(job);
      return { kind: 'skipped', reason: 'The run does not match the rule’s filter.' };
    }
    if (matched.status === 'running') return this.waitOrGiveUp(job);
    const run = toRun(matched);
    const evaluator = JSON.parse(rule.evaluator) as Evaluator;
    const metadata = (run.metadata ?? {}) as Record<string, unknown>;
    try {
      if (evaluator.type === 'llm_judge') {
        const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(EVALUATION_TIMEOUT_MS)]);
        const verdict = await judgeRun(this.deps, rule, evaluator, { input: textOf(run.inputs), output: textOf(run.outputs ?? run.error), metadata }, signal);
        return { kind: 'done', verdict };
      }
      const builtin = evaluator as unknown as BuiltinEvaluator;
      const verdict: Verdict = evaluateBuiltin(builtin, {
        output: textOf(run.outputs ?? run.error),
        expected: expectedOf(builtin, metadata),
        latencyMs: run.latencyMs,
      });
      return { kind: 'done', verdict };
    } catch (error) {
      if (error instanceof NotApplicable) return { kind: 'skipped', reason: error.message };
      if (error instanceof JudgeFailure) return { kind: 'error', message: error.message, retryable: error.retryable };
      if (error instanceof Problem) return { kind: 'error', message: error.detail ?? error.slug, retryable: false };
      return { kind: 'error', message: (error as Error).message ?? String(error), retryable: true };
    }
  }

  private waitOrGiveUp(job: EvaluationJobRow): Outcome {
    if (this.deps.clock.now() - Number(job.created_at) >= UNFINISHED_WAIT_MS)
      return { kind: 'skipped', reason: `The run was still running ${UNFINISHED_WAIT_MS / 60_000} minutes after it was sampled.` };
    return { kind: 'wait' };
  }

  // ---- the background loop ---------------------------------------------------------------------

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runDue(), this.intervalMs);
    this.timer.unref();
    void this.runDue();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await this.running;
  }
}

class LeaseLost extends Error {}
