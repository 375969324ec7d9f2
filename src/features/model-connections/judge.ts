// Stub, replaced by the judge branch (model connections, migration 018): the interface the evaluator
// workers call, so that `llm_judge` rules can be saved and their jobs fail plainly until it is merged.
import type { Deps } from '../../deps.js';

export interface JudgeRequest {
  organizationId: string;
  connectionId: string;
  prompt: { name: string; version?: number; label?: string };
  projectId: string;
  variables: { input: string; output: string; expected: string };
}

export interface JudgeVerdict {
  score: number | boolean | string;
  reason: string | null;
  costUsd: number;
}

export class JudgeError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export async function runJudge(_deps: Deps, _request: JudgeRequest, _signal: AbortSignal): Promise<JudgeVerdict> {
  throw new JudgeError('llm judge not available', false);
}
