import type { Deps } from '../../deps.js';
import type { EvaluatorRuleRow } from '../../db/schema.js';
import { JudgeError, runJudge } from '../model-connections/index.js';
import { expectedOf } from './evaluators.builtins.js';
import type { Evaluator } from './evaluators.schemas.js';

type LlmJudge = Extract<Evaluator, { type: 'llm_judge' }>;

/** A judge's failure as the worker sees it: whether trying again may help. */
export class JudgeFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * An `llm_judge` rule's verdict on a run, from the model connections feature's `runJudge` (the one
 * place the evaluators call a model): the prompt named by the rule with the run's input, output and
 * expected output (metadata `expectedKey`, default `expected`; empty when absent).
 */
export async function judgeRun(
  deps: Deps,
  rule: EvaluatorRuleRow,
  evaluator: LlmJudge,
  run: { input: string; output: string; metadata: Record<string, unknown> },
  signal: AbortSignal,
): Promise<{ value: number | boolean | string; comment: string | null }> {
  try {
    const verdict = await runJudge(
      deps,
      {
        organizationId: rule.organization_id,
        projectId: rule.project_id,
        connectionId: evaluator.connectionId,
        prompt: {
          name: evaluator.promptName,
          ...(evaluator.promptVersion !== undefined ? { version: evaluator.promptVersion } : {}),
          ...(evaluator.promptLabel !== undefined ? { label: evaluator.promptLabel } : {}),
        },
        variables: { input: run.input, output: run.output, expected: expectedOf({ expectedKey: evaluator.expectedKey }, run.metadata) ?? '' },
      },
      signal,
    );
    return { value: verdict.score, comment: verdict.reason };
  } catch (error) {
    if (error instanceof JudgeError) throw new JudgeFailure(error.message, error.retryable);
    throw error;
  }
}
