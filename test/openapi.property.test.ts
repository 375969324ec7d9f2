import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { describeEachDialect, type Caller } from './helpers/harness.js';
import { arbitraryOf, type Schema } from './helpers/schema-arbitrary.js';
import { INEXPRESSIBLE, ruleOf } from './openapi.property.rules.js';

/**
 * Requests generated from `openapi.json` alone, as a fuzzer or a client generator reads it: for every
 * operation, schema-valid path, query and body (test/helpers/schema-arbitrary.ts, each value checked
 * against its schema by Ajv before it is sent). Every answer: no 5xx, its status documented for the
 * operation, its body valid against the schema documented for that status; and a schema-valid request
 * is refused as invalid (400) only by a rule JSON Schema cannot state, each listed with its reason
 * (openapi.property.rules.ts). Resources the creates made are named by later requests' path parameters,
 * so the rules behind a lookup are reached too; deletes go last.
 */
type Json = Record<string, any>;
type Parameter = { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: Schema; style?: string; explode?: boolean };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Json>;
};

const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as Json;
const SEED = Number(process.env.OPENAPI_PROPERTY_SEED ?? 20261129);
const SAMPLES = Number(process.env.OPENAPI_PROPERTY_SAMPLES ?? 12);

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
// ajv-formats ships CommonJS with a default export.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
addFormats(ajv);
for (const format of ['int32', 'int64', 'binary']) ajv.addFormat(format, true);
ajv.addSchema({ ...doc, $id: 'openapi.json' });
const validators = new Map<string, ValidateFunction>();
/** A validator of the schema at a JSON pointer of the document (its `$ref`s resolved in the document). */
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) validators.set(pointer, (validate = ajv.compile({ $ref: `openapi.json#${pointer.split('/').map(encodeURIComponent).join('/')}` })));
  return validate;
}
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const resolve = (ref: string): Schema =>
  ref
    .slice(2)
    .split('/')
    .reduce((node: Json, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, op]) => METHODS.includes(method) && (!op.requestBody || 'application/json' in op.requestBody.content))
    .map(([method, op]) => ({ path, method, op, pointer: `/paths/${escape(path)}/${method}` })),
);

/** The path parameter an item of a collection is named by: `/v1/datasets` → `dataset_id`. */
const itemParameter = (collection: string) => {
  for (const { path } of operations) {
    const match = path.startsWith(`${collection}/{`) ? /^\{([^}]+)\}$/.exec(path.slice(collection.length + 1)) : null;
    if (match) return match[1]!;
  }
  return null;
};
const isCreate = (path: string, method: string) => method === 'post' && itemParameter(path) !== null;
/** Creates first (parents before children), then reads and changes, then deletes (children before parents). */
const phase = ({ path, method }: { path: string; method: string }) => (isCreate(path, method) ? 0 : method === 'delete' ? 2 : 1);
const ordered = [...operations].sort((a, b) => phase(a) - phase(b) || (phase(a) === 2 ? -1 : 1) * (a.path.split('/').length - b.path.split('/').length));

const CURSOR = new RegExp((doc.paths['/v1/projects'].get as Operation).parameters!.find((p) => p.name === 'cursor')!.schema.pattern as string, 'u');

/** Operations that call out to what a request configured: sent with generated ids only (a 404). */
const NEVER_CALLED = new Set(['post /v1/model-connections/{connection_id}/test']);

interface Sample {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/** The operation's requests: its parameters and body from their schemas. */
function requestArbitrary(op: Operation): fc.Arbitrary<Sample> {
  const of = (where: Parameter['in']) => {
    const members: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const p of op.parameters ?? []) {
      if (p.in !== where) continue;
      members[p.name] = arbitraryOf(p.schema, { resolve });
      if (p.required || where === 'path') required.push(p.name);
    }
    return fc.record(members, { requiredKeys: required });
  };
  const body = op.requestBody ? arbitraryOf(op.requestBody.content['application/json']!.schema, { resolve }) : fc.constant(undefined);
  return fc.record({ path: of('path') as fc.Arbitrary<Record<string, string>>, query: of('query'), body });
}

/** Whether every part of a sample is valid by the document (what the arbitraries only aim at). */
function schemaValid(pointer: string, op: Operation, sample: Sample): boolean {
  const parameters = op.parameters ?? [];
  for (const [i, p] of parameters.entries()) {
    const value = p.in === 'path' ? sample.path[p.name] : p.in === 'query' ? sample.query[p.name] : undefined;
    if (value === undefined) continue;
    if (!validatorAt(`${pointer}/parameters/${i}/schema`)(value)) return false;
  }
  return sample.body === undefined || validatorAt(`${pointer}/requestBody/content/application~1json/schema`)(sample.body);
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The query string of a sample, as OpenAPI's default style (form, exploded) writes it. */
function queryString(op: Operation, query: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (name: string, value: unknown) => pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(text(value))}`);
  for (const p of op.parameters ?? []) {
    const value = query[p.name];
    if (p.in !== 'query' || value === undefined) continue;
    if (Array.isArray(value)) value.forEach((item) => add(p.name, item));
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) add(key, item);
    else add(p.name, value);
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

describeEachDialect('requests generated from the API document', (ctx) => {
  let owner: Caller;
  /** Ids of resources that exist, by the path parameter that names them. */
  const known = new Map<string, string[]>();
  const remember = (name: string, id: unknown) => typeof id === 'string' && known.set(name, [...(known.get(name) ?? []), id]);

  const send = (method: string, url: string, body: unknown, basic: boolean): Promise<LightMyRequestResponse> => {
    const project = known.get('project_id')?.[0] ?? 'none';
    const authorization = basic ? `Basic ${Buffer.from(`${project}:${owner.token}`).toString('base64')}` : `Bearer ${owner.token}`;
    return ctx.app.inject({
      method: method.toUpperCase() as 'GET',
      url,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  };

  it('every answer is documented and valid by its schema; schema-valid requests are refused only by the listed rules', { timeout: 600_000 }, async () => {
    owner = await ctx.make.caller();
    const member = await ctx.make.caller({ role: 'member', organizationId: owner.organizationId });
    remember('member', member.userId);
    const project = await ctx.make.project(owner.organizationId);
    remember('project_id', project.id);
    const runs = await ctx.make.runs(project.id, 3, (i) => ({
      sessionId: 'sess-1',
      userId: 'end-user-1',
      status: 'succeeded',
      endTime: `2026-11-01T00:00:0${i + 1}.500Z`,
    }));
    runs.forEach((id) => remember('run_id', id));
    remember('trace_id', runs[0]);
    remember('session_id', 'sess-1');
    remember('end-user', 'end-user-1');

    // Each finding once, with the first request that showed it.
    const found = new Map<string, string>();
    const report = (finding: string, request: string) => void (found.has(finding) || found.set(finding, `${finding} for ${request}`));
    const refusals = new Map<string, number>();
    let sent = 0;
    let discarded = 0;
    for (const { path, method, op, pointer } of ordered) {
      const samples = fc.sample(requestArbitrary(op), { numRuns: SAMPLES, seed: SEED + sent });
      for (const [n, sample] of samples.entries()) {
        // Most requests name resources that exist (the rules behind the lookup); the others, generated ids.
        // A model connection's test call is never made: it would call the generated URL (its own suite calls a local one).
        for (const name of NEVER_CALLED.has(`${method} ${path}`) ? [] : Object.keys(sample.path)) {
          const pool = known.get(name === 'user_id' ? (path.includes('/members/') ? 'member' : 'end-user') : name);
          if (pool && n % 4 !== 3) sample.path[name] = pool[n % pool.length]!;
        }
        if (!schemaValid(pointer, op, sample)) {
          discarded++;
          continue;
        }
        const url = path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(sample.path[name]!)) + queryString(op, sample.query);
        const res = await send(method, url, sample.body, path.startsWith('/api/public/'));
        sent++;
        const where = `${method.toUpperCase()} ${path} → ${res.statusCode}`;
        const request = `${url} ${sample.body === undefined ? '' : JSON.stringify(sample.body).slice(0, 300)}`;
        if (res.statusCode >= 500) {
          report(`${where}: a server error`, `${request}: ${res.body.slice(0, 300)}`);
          continue;
        }
        const documented = op.responses[String(res.statusCode)];
        if (!documented) {
          report(`${where} is not documented`, `${request}: ${res.body.slice(0, 200)}`);
          continue;
        }
        const type = String(res.headers['content-type'] ?? '').split(';')[0]!;
        const body = type === 'application/json' || type === 'application/problem+json' ? (res.json() as Json) : undefined;
        if (documented.content) {
          expect(Object.keys(documented.content), `${where}: content type ${type}`).toContain(type);
          const validate = validatorAt(`${pointer}/responses/${res.statusCode}/content/${escape(type)}/schema`);
          if (body !== undefined && !validate(body))
            report(`${where}: the body breaks its schema: ${ajv.errorsText(validate.errors)}`, `${request}: ${res.body.slice(0, 300)}`);
        }
        // Every cursor a list hands out has the shape its `cursor` parameter states.
        if (typeof body?.nextCursor === 'string' && !CURSOR.test(body.nextCursor))
          report(`${where}: a nextCursor the cursor parameter's pattern refuses`, body.nextCursor);
        if (res.statusCode === 400) {
          for (const fault of body?.errors ?? [{ detail: body?.detail }]) {
            const rule = ruleOf(method, path, fault);
            refusals.set(rule, (refusals.get(rule) ?? 0) + 1);
            if (!(rule in INEXPRESSIBLE)) report(`${where}: a schema-valid request refused by "${rule}"`, request);
          }
        }
        if (isCreate(path, method) && res.statusCode === 201) remember(itemParameter(path)!, body?.id);
      }
    }
    expect(sent, `sent ${sent}, discarded ${discarded}`).toBeGreaterThan(operations.length * 4);
    expect(discarded, 'the arbitraries generate schema-valid requests nearly always').toBeLessThan(sent / 2);
    expect([...found.values()].map((f) => f.slice(0, 600))).toEqual([]);
    // The listed rules are all still there: a rule the server no longer has is taken off the list. One
    // that no generated request met is shown by its example, when it has one.
    // (in a project of their own: the generated requests may have deleted every other).
    const fresh = await send('post', '/v1/projects', { name: 'rule examples' }, false);
    expect(fresh.statusCode, fresh.body).toBe(201);
    const made: Record<string, string> = { project_id: (fresh.json() as { id: string }).id };
    for (const [name, rule] of Object.entries(INEXPRESSIBLE)) {
      if (refusals.has(name) || rule.example === undefined) continue;
      const { method, path, body } = rule.example;
      const url = path.replace(/\{([^}]+)\}/g, (_all, param: string) => encodeURIComponent(made[param] ?? known.get(param)?.[0] ?? 'none'));
      const res = await send(method, url, body, false);
      expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBe(400);
      for (const fault of (res.json() as Json).errors ?? []) refusals.set(ruleOf(method, path, fault), 1);
    }
    expect(Object.keys(INEXPRESSIBLE).filter((rule) => !refusals.has(rule))).toEqual([]);
  });
});
