import type { App, Deps } from '../../deps.js';
import { scopeOf } from '../annotations/index.js';
import { projectList } from '../page-route.js';
import { routeKit } from '../route-kit.js';
import { createRule, deleteRule, listRules, ruleWithCounts, toRule, updateRule } from './evaluators.repo.js';
import { CreateRuleBody, EvaluatorRulePage, RuleParams, UpdateRuleBody } from './evaluators.schemas.js';
import { ProjectParams } from '../../schemas/records.js';

export const tags = ['Evaluators'];

export function evaluatorRoutes(app: App, { db, clock, cursors }: Deps): void {
  const route = routeKit(app, { tags, cursors });

  route.page(
    '/projects/:project_id/evaluators',
    {
      scope: 'scores:read',
      operationId: 'listEvaluatorRules',
      summary: 'List evaluator rules',
      description: 'Newest first (then id), each with its jobs counted by status as of the request.',
      params: ProjectParams,
      page: EvaluatorRulePage,
    },
    projectList(
      'evaluators',
      (request) => scopeOf(db, request),
      (scope, after, take) => listRules(db, scope, after, take),
    ),
    toRule,
  );

  route.create(
    '/projects/:project_id/evaluators',
    {
      scope: 'quality:admin',
      operationId: 'createEvaluatorRule',
      summary: 'Create an evaluator rule',
      description:
        'From now on, new runs of the project are sampled at `sampleRate` (by a hash of rule and run ids) and those that match `filter` once finished are scored by the evaluator in the background, as scores named `scoreName` with source `evaluator`. Runs stored before the rule are not evaluated. A filter the runs list refuses, a pattern that could take exponential time or a schema that does not compile is a 400; a name the project has, a 409.',
      params: ProjectParams,
      body: CreateRuleBody,
      answer: 'EvaluatorRule',
      problems: [409],
    },
    async (request) => toRule(await createRule(db, await scopeOf(db, request), request.body, clock.now())),
  );

  route.get(
    '/projects/:project_id/evaluators/:rule_id',
    {
      scope: 'scores:read',
      operationId: 'getEvaluatorRule',
      summary: 'Get an evaluator rule',
      description: 'With its jobs by status (`pending`, `done`, `failed`, `skipped`) and the error of its latest failed job.',
      params: RuleParams,
      answer: 'EvaluatorRule',
    },
    async (request) => toRule(await ruleWithCounts(db, await scopeOf(db, request), request.params.rule_id)),
  );

  route.patch(
    '/projects/:project_id/evaluators/:rule_id',
    {
      scope: 'quality:admin',
      operationId: 'updateEvaluatorRule',
      summary: 'Change an evaluator rule',
      description:
        'Its name, filter, rate, evaluator, score name or whether it is enabled. Jobs already queued are evaluated with the rule as it is when they run; disabling it leaves them pending. A name another rule of the project has is a 409.',
      params: RuleParams,
      body: UpdateRuleBody,
      answer: 'EvaluatorRule',
      problems: [409],
    },
    async (request) => toRule(await updateRule(db, await scopeOf(db, request), request.params.rule_id, request.body, clock.now())),
  );

  route.delete(
    '/projects/:project_id/evaluators/:rule_id',
    {
      scope: 'quality:admin',
      operationId: 'deleteEvaluatorRule',
      summary: 'Delete an evaluator rule',
      description: 'With its jobs; the scores it gave stay.',
      params: RuleParams,
    },
    async (request) => deleteRule(db, await scopeOf(db, request), request.params.rule_id),
  );
}
