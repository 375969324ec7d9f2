import { Ajv, type ValidateFunction } from 'ajv';
import safeRegex from 'safe-regex2';

/**
 * The evaluators that need no model: pure functions of a run's text (no database, no network), each
 * giving a score value and a short comment that says why. Which value each gives:
 *
 * | type | value |
 * |---|---|
 * | `json_valid` | boolean: the output is JSON |
 * | `json_schema` | boolean: the output is JSON that the schema accepts |
 * | `regex` | boolean: the pattern is found (`mode: no_match`: is not found) |
 * | `contains` | boolean: any (`all`, `none`) of the strings is in the output |
 * | `exact_match` | boolean: the output equals the expected text |
 * | `fuzzy_match` | number 0..1 (normalized Levenshtein similarity); boolean with `threshold` (similarity ≥ it) |
 * | `length` | boolean: the output's length in characters is within [min, max] |
 * | `latency` | boolean: the run's latency is at most `maxMs` |
 */

/** Longest regex pattern a rule may have (characters). */
export const MAX_PATTERN = 200;
/** Characters of the output a regex is run over (the rest is not looked at; the comment says so). */
export const MAX_REGEX_INPUT = 10_000;
/** Characters of each side a fuzzy match compares (the Levenshtein table is their product). */
export const MAX_FUZZY_INPUT = 2_000;
/** Longest JSON schema a rule may have (characters of its JSON text). */
export const MAX_SCHEMA = 20_000;
/** Strings a `contains` evaluator may look for. */
export const MAX_CONTAINS = 20;

export interface BuiltinEvaluator {
  type: 'json_valid' | 'json_schema' | 'regex' | 'contains' | 'exact_match' | 'fuzzy_match' | 'length' | 'latency';
  schema?: Record<string, unknown>;
  pattern?: string;
  flags?: string;
  mode?: string;
  values?: string[];
  caseSensitive?: boolean;
  expected?: string;
  expectedKey?: string;
  threshold?: number;
  min?: number;
  max?: number;
  maxMs?: number;
}

/** What an evaluator reads of a run: its output as text, the expected text (rule or metadata), its latency. */
export interface EvaluationSubject {
  output: string;
  expected: string | null;
  latencyMs: number | null;
}

export interface Verdict {
  value: number | boolean;
  comment: string;
}

/** A run's inputs or outputs as the text evaluators read: a string as it is, an object of one string its string, else its JSON. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const values = Object.values(value as Record<string, unknown>);
    if (values.length === 1 && typeof values[0] === 'string') return values[0];
  }
  return JSON.stringify(value);
}

/** The expected text of a run for a rule: the rule's literal, else the run's metadata value under `expectedKey` (default `expected`). */
export function expectedOf(evaluator: { expected?: string; expectedKey?: string }, metadata: Record<string, unknown>): string | null {
  if (evaluator.expected !== undefined) return evaluator.expected;
  const value = metadata[evaluator.expectedKey ?? 'expected'];
  return value === undefined || value === null ? null : textOf(value);
}

// ---- checking a rule's evaluator when it is saved --------------------------------------------------

/**
 * Why a regex is refused, or null: too long, back-references (which no bound on the input makes
 * linear), or nested or overlapping repetition (safe-regex2's star-height check), or not JavaScript
 * syntax. With the input bounded to MAX_REGEX_INPUT characters, what passes runs in time bounded by a
 * small power of the input's length.
 */
export function patternFault(pattern: string, flags = ''): string | null {
  if (pattern.length > MAX_PATTERN) return `A pattern has at most ${MAX_PATTERN} characters.`;
  if (/\\[1-9]|\\k</.test(pattern)) return 'Back-references are not allowed in a pattern.';
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return `Not a valid regular expression: ${(error as Error).message}`;
  }
  if (!safeRegex(pattern)) return 'The pattern nests repetition (such as (a+)+): it could take exponential time. Rewrite it without nested quantifiers.';
  return null;
}

// One compiler for rule schemas, apart from the API's own: no formats (ignored), nothing loaded from elsewhere.
const schemaAjv = new Ajv({ strict: false, allErrors: false, validateFormats: false, logger: false });
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 200;

/** The patterns a JSON schema holds (`pattern` values and `patternProperties` keys), found by a walk of the whole schema. */
function schemaPatterns(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) schemaPatterns(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') out.push(value);
      if (key === 'patternProperties' && value !== null && typeof value === 'object') out.push(...Object.keys(value));
      schemaPatterns(value, out);
    }
  }
  return out;
}

/** A rule's JSON schema compiled (kept for the next job of the rule), or the reason it is refused. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction | string {
  const text = JSON.stringify(schema);
  const known = compiled.get(text);
  if (known) return known;
  if (text.length > MAX_SCHEMA) return `A schema has at most ${MAX_SCHEMA} characters of JSON.`;
  for (const pattern of schemaPatterns(schema)) {
    const fault = patternFault(pattern, 'u');
    if (fault) return `Pattern ${JSON.stringify(pattern.slice(0, 50))}: ${fault}`;
  }
  try {
    const validate = schemaAjv.compile(schema);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(text, validate);
    return validate;
  } catch (error) {
    return `Not a valid JSON schema: ${(error as Error).message}`;
  }
}

/** What makes a built-in evaluator unusable (each with its field), beyond what the request schema says. */
export function builtinFaults(evaluator: BuiltinEvaluator): { field: string; detail: string }[] {
  const faults: { field: string; detail: string }[] = [];
  if (evaluator.type === 'regex' && evaluator.pattern !== undefined) {
    const fault = patternFault(evaluator.pattern, evaluator.flags ?? '');
    if (fault) faults.push({ field: 'pattern', detail: fault });
  }
  if (evaluator.type === 'json_schema' && evaluator.schema !== undefined) {
    const result = compileSchema(evaluator.schema);
    if (typeof result === 'string') faults.push({ field: 'schema', detail: result });
  }
  if (evaluator.type === 'length') {
    if (evaluator.min === undefined && evaluator.max === undefined) faults.push({ field: 'min', detail: 'A length evaluator has min, max or both.' });
    if (evaluator.min !== undefined && evaluator.max !== undefined && evaluator.min > evaluator.max)
      faults.push({ field: 'max', detail: 'max is at least min.' });
  }
  if ((evaluator.type === 'exact_match' || evaluator.type === 'fuzzy_match') && evaluator.expected !== undefined && evaluator.expectedKey !== undefined)
    faults.push({ field: 'expectedKey', detail: 'Give expected (a literal) or expectedKey (a metadata key of the run), not both.' });
  return faults;
}

// ---- evaluating -----------------------------------------------------------------------------------

/** Why a run cannot be evaluated by a rule at all (it is skipped, not failed): no expected text. */
export class NotApplicable extends Error {}

const quote = (text: string, max = 60) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** Levenshtein distance by two rows (inputs bounded by the caller). */
export function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length === 0) return y.length;
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[y.length]!;
}

/** 1 - distance / the longer length (1 for two empty texts), over at most MAX_FUZZY_INPUT characters of each. */
export function similarity(a: string, b: string): number {
  const x = [...a].slice(0, MAX_FUZZY_INPUT).join('');
  const y = [...b].slice(0, MAX_FUZZY_INPUT).join('');
  const longest = Math.max([...x].length, [...y].length);
  return longest === 0 ? 1 : 1 - levenshtein(x, y) / longest;
}

function requireExpected(subject: EvaluationSubject, evaluator: BuiltinEvaluator): string {
  if (subject.expected !== null) return subject.expected;
  throw new NotApplicable(`The run has no metadata.${evaluator.expectedKey ?? 'expected'} to compare with.`);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** A built-in evaluator's verdict on a run. Throws NotApplicable when the run lacks what it compares with. */
export function evaluateBuiltin(evaluator: BuiltinEvaluator, subject: EvaluationSubject): Verdict {
  const output = subject.output;
  switch (evaluator.type) {
    case 'json_valid': {
      const parsed = parseJson(output);
      return parsed.ok ? { value: true, comment: 'The output is valid JSON.' } : { value: false, comment: `The output is not JSON: ${parsed.error}` };
    }
    case 'json_schema': {
      const parsed = parseJson(output);
      if (!parsed.ok) return { value: false, comment: `The output is not JSON: ${parsed.error}` };
      const validate = compileSchema(evaluator.schema ?? {});
      if (typeof validate === 'string') throw new Error(validate);
      if (validate(parsed.value)) return { value: true, comment: 'The output matches the schema.' };
      const error = validate.errors?.[0];
      return { value: false, comment: `The output does not match the schema: ${error?.instancePath || '(root)'} ${error?.message ?? ''}`.trim() };
    }
    case 'regex': {
      const text = output.slice(0, MAX_REGEX_INPUT);
      const found = new RegExp(evaluator.pattern ?? '', evaluator.flags ?? '').test(text);
      const cut = output.length > MAX_REGEX_INPUT ? ` (in the first ${MAX_REGEX_INPUT} characters)` : '';
      const wanted = evaluator.mode !== 'no_match';
      return { value: found === wanted, comment: `The pattern ${found ? 'is' : 'is not'} found${cut}${wanted ? '' : ', as it should not be'}.` };
    }
    case 'contains': {
      const fold = (text: string) => (evaluator.caseSensitive === false ? text.toLowerCase() : text);
      const haystack = fold(output);
      const values = evaluator.values ?? [];
      const present = values.filter((v) => haystack.includes(fold(v)));
      const mode = evaluator.mode ?? 'any';
      const value = mode === 'all' ? present.length === values.length : mode === 'none' ? present.length === 0 : present.length > 0;
      const which = present.length === 0 ? 'none of them' : present.map((v) => quote(v, 30)).join(', ');
      return { value, comment: `Found ${present.length} of ${values.length} strings (${which}); wanted ${mode}.` };
    }
    case 'exact_match': {
      const expected = requireExpected(subject, evaluator);
      const fold = (text: string) => (evaluator.caseSensitive === false ? text.trim().toLowerCase() : text.trim());
      const same = fold(output) === fold(expected);
      return { value: same, comment: same ? 'The output equals the expected text.' : `The output differs from the expected ${quote(expected)}.` };
    }
    case 'fuzzy_match': {
      const expected = requireExpected(subject, evaluator);
      const fold = (text: string) => (evaluator.caseSensitive === false ? text.trim().toLowerCase() : text.trim());
      const score = Math.round(similarity(fold(output), fold(expected)) * 1000) / 1000;
      if (evaluator.threshold === undefined) return { value: score, comment: `Similarity ${score} to the expected text.` };
      const pass = score >= evaluator.threshold;
      return { value: pass, comment: `Similarity ${score} to the expected text, ${pass ? 'at or above' : 'below'} the threshold ${evaluator.threshold}.` };
    }
    case 'length': {
      const length = [...output].length;
      const { min, max } = evaluator;
      const pass = (min === undefined || length >= min) && (max === undefined || length <= max);
      return { value: pass, comment: `${length} characters; wanted ${min ?? 0}..${max ?? '∞'}.` };
    }
    case 'latency': {
      if (subject.latencyMs === null) throw new NotApplicable('The run has no latency (no endTime).');
      const pass = subject.latencyMs <= (evaluator.maxMs ?? 0);
      return { value: pass, comment: `${subject.latencyMs} ms; wanted at most ${evaluator.maxMs} ms.` };
    }
  }
}
