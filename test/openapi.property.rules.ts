/**
 * The rules by which the server refuses a request that is valid by `openapi.json`: each one JSON Schema
 * cannot state (a comparison of two values, what is stored, a setting, authenticity), so the operation's
 * or the field's description says it instead. The list only shrinks: a rule a schema can state goes into
 * the schema, and the property test (openapi.property.test.ts) fails on a rule listed here that no
 * generated request met.
 */
export interface Rule {
  /** `METHOD /path` of the operations it applies to. */
  operations: RegExp;
  /** The parameter or body pointer it names (item indexes as `*`). */
  where: RegExp;
  detail: RegExp;
  why: string;
  /**
   * A request the rule refuses, sent when no generated request met it (the generated sequence shifts
   * whenever an operation is added): the rule is then shown to be there all the same. Path parameters
   * as `{name}`, filled from the resources the test made.
   */
  example?: { method: 'POST' | 'PATCH' | 'PUT'; path: string; body: unknown };
}

const ALL = /./;

export const INEXPRESSIBLE: Record<string, Rule> = {
  cursor: {
    operations: ALL,
    where: /^cursor$/,
    detail: /^Cursor is malformed\.$/,
    why: 'A cursor is one this service wrote for this list and these filters (authenticated encryption): its shape is in the schema, its authenticity cannot be.',
  },
  'a word to search': {
    operations: ALL,
    where: /(^|\/)q$/,
    detail: /^Must contain at least one word \(letters or digits\)\.$/,
    why: 'A word is a letter or digit of any script (`\\p{L}`, `\\p{N}`), which no portable pattern states.',
  },
  'from before to': {
    operations: ALL,
    where: /^from$/,
    detail: /^from must be before to\.$/,
    why: 'A comparison of two parameters.',
  },
  'a metadata key with its field': {
    operations: /^GET \/v1\/projects\/\{project_id\}\/runs\/values$/,
    where: /^key$/,
    detail: /^(Required|Only) with field=metadataValue: /,
    why: 'Which parameters go together (`key` with field=metadataValue, always and only): a parameter’s schema speaks of that parameter alone.',
  },
  'buckets in a range': {
    operations: ALL,
    where: /^bucket$/,
    detail: /^The range holds more than \d+ buckets/,
    why: 'The number of buckets is the range divided by the bucket: arithmetic across parameters.',
  },
  'a price for the model': {
    operations: /^(POST|PATCH) \/v1\/model-connections/,
    where: /^\/pricing$/,
    detail: /^No price is known for the model .*: give pricing\.$/,
    why: 'Whether a model is priced depends on the built-in table and the organization’s prices.',
  },
  'a score config that exists': {
    operations: ALL,
    where: /^\/(scoreConfigIds\/\*|configId|scores\/\*\/configId)$/,
    detail: /^Score config .* does not exist\.$/,
    why: 'A reference to what is stored.',
  },
  'projects of the organization that the caller reaches': {
    operations: /^POST \/v1\/tokens$/,
    where: /^\/projectIds\/\*$/,
    detail: /^Project .* does not exist\.$/,
    why: 'A reference to what is stored (a narrowed caller names its own projects only).',
    example: { method: 'POST', path: '/v1/tokens', body: { name: 'narrowed', projectIds: ['prj_00000000000000000000000000'] } },
  },
  'variables the template has': {
    operations: /^POST \/v1\/prompts\/\{prompt_id\}\/render$/,
    where: /^\/variables\/.+$/,
    detail: /^Unknown variable '.*': the template has no \{\{.*\}\}\.$/,
    why: 'Which variables a prompt takes is in its stored template.',
    example: { method: 'POST', path: '/v1/prompts/{prompt_id}/render', body: { variables: { notInTheTemplate: 'x' } } },
  },
  'a prompt version or label that exists': {
    operations: /^(POST|PUT) \/v1\/prompts\/\{prompt_id\}\/(render|labels\/\{label\})$/,
    where: /^\/(version|label)$/,
    detail: /^(Version \d+|Label .*) does not exist/,
    why: 'A reference to what is stored.',
  },
  'a dataset version that exists': {
    operations: /^GET \/v1\/datasets\/\{dataset_id\}\/items/,
    where: /^version$/,
    detail: /^The dataset is at version \d+: ask for 0 to \d+\.$/,
    why: 'A reference to what is stored.',
  },
  'a maximum at least the minimum': {
    operations: /^(POST|PATCH) \/v1\/projects\/\{project_id\}\/evaluators/,
    where: /^\/evaluator\/max$/,
    detail: /^max is at least min\.$/,
    why: 'A comparison of two fields of the body (a built-in evaluator’s bounds).',
    example: {
      method: 'POST',
      path: '/v1/projects/{project_id}/evaluators',
      body: { name: 'bounds', evaluator: { type: 'length', min: 5, max: 2 }, scoreName: 'length' },
    },
  },
  'a change that agrees with what is stored': {
    operations: /^PATCH \/v1\/(score-configs\/\{config_id\}|projects\/\{project_id\}\/(monitors\/\{monitor_id\}|runs\/\{run_id\}))$/,
    where: ALL,
    detail: ALL,
    why: 'A partial update is checked against the record it changes (a config’s data type, a monitor’s metric, a run’s status and times).',
  },
};

type Fault = { pointer?: string; parameter?: string; header?: string; detail?: string };

/** The listed rule a refusal is by, or what refused it (`<METHOD> <path> <where>: <detail>`) when no listed rule says so. */
export function ruleOf(method: string, path: string, fault: Fault): string {
  const where = fault.pointer !== undefined ? fault.pointer.replace(/\/\d+(?=\/|$)/g, '/*') : (fault.parameter ?? fault.header ?? '(request)');
  const detail = fault.detail ?? '';
  const operation = `${method.toUpperCase()} ${path}`;
  for (const [name, rule] of Object.entries(INEXPRESSIBLE))
    if (rule.operations.test(operation) && rule.where.test(where) && rule.detail.test(detail)) return name;
  return `${operation} ${where}: ${detail}`;
}
