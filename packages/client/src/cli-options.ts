/** The remote commands' options: a strict parser, the shared and run-filter options, and what they become (a client, a page size, run filters). */
import { Sightline } from './client.js';
import type { CliIo } from './cli-output.js';
import type { RunFilters } from './types.js';

export class UsageError extends Error {}

export interface OptionSpec {
  [name: string]: 'string' | 'boolean' | 'multiple';
}

/** A strict long-option parser (`--name value`, `--name=value`, repeatable options, positionals). */
export function parseOptions(argv: string[], spec: OptionSpec): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  const values: Record<string, string | boolean | string[] | undefined> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined || (eq === -1 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (kind === 'multiple') values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else values[name] = value;
  }
  return { values, positionals };
}

export const COMMON: OptionSpec = { url: 'string', help: 'boolean' };
export const RUN_FILTERS: OptionSpec = {
  project: 'string',
  status: 'string',
  kind: 'string',
  name: 'string',
  tag: 'multiple',
  model: 'string',
  'trace-id': 'string',
  'parent-run-id': 'string',
  'started-after': 'string',
  'started-before': 'string',
  metadata: 'multiple',
  limit: 'string',
  progress: 'boolean',
  quiet: 'boolean',
};

export function clientFor(values: Record<string, unknown>, io: CliIo): Sightline {
  const baseUrl = (values.url as string | undefined) ?? io.env.SIGHTLINE_URL ?? 'http://localhost:8080';
  const token = io.env.SIGHTLINE_TOKEN;
  if (!token) throw new UsageError('SIGHTLINE_TOKEN is not set (a personal access token: see `sightline token create`)');
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) throw new UsageError(`--url must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  return new Sightline({ baseUrl, token, ...(io.fetch ? { fetch: io.fetch } : {}) });
}

export function pageSize(values: Record<string, unknown>): number | undefined {
  const raw = values.limit as string | undefined;
  if (raw === undefined) return 100;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) throw new UsageError('--limit (page size) must be an integer from 1 to 100');
  return Number(raw);
}

export function runFilters(values: Record<string, unknown>): RunFilters {
  const filters: Record<string, unknown> = {};
  const map: [string, string][] = [
    ['status', 'status'],
    ['kind', 'kind'],
    ['name', 'name'],
    ['model', 'model'],
    ['trace-id', 'traceId'],
    ['started-after', 'startedAfter'],
    ['started-before', 'startedBefore'],
  ];
  for (const [option, field] of map) if (values[option] !== undefined) filters[field] = values[option];
  if (values.tag) filters.tag = values.tag;
  if (values['parent-run-id'] !== undefined) filters.parentRunId = values['parent-run-id'] === 'null' ? null : values['parent-run-id'];
  for (const pair of (values.metadata as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--metadata takes key=value, got ${JSON.stringify(pair)}`);
    filters[`metadata.${pair.slice(0, eq)}`] = pair.slice(eq + 1);
  }
  return filters as RunFilters;
}
