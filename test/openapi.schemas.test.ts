import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORIGIN_PATTERN } from '../src/features/organizations/organizations.schemas.js';
import { originFault } from '../src/features/organizations/origins.js';
import { Type } from '@sinclair/typebox';
import { KeyedRecord, NOT_BLANK_PATTERN, TRIMMED_LINE_PATTERN, TRIMMED_TEXT_PATTERN } from '../src/schemas/common.js';
import { compileValidator } from '../src/lib/validation.js';
import { PageOnlyQuery } from '../src/lib/pagination.js';
import { CreateProjectBody } from '../src/features/projects/projects.schemas.js';
import { RenderBody } from '../src/features/prompts/prompts.schemas.js';
import { createTokenBody } from '../src/features/tokens/tokens.schemas.js';

type Json = Record<string, unknown>;
const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as Json;

/** Every regular expression of the document: `pattern` values and `patternProperties` keys. */
function patternsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => patternsOf(item, out));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'pattern' && typeof item === 'string') out.push(item);
      if (key === 'patternProperties' && item && typeof item === 'object') out.push(...Object.keys(item));
      patternsOf(item, out);
    }
  }
  return out;
}

/** Text around a character: alone, first, last and inside. */
const placements = (c: string) => [c, `${c}a`, `a${c}`, `a${c}b`, `${c}${c}`];

/** Every code point of the BMP (lone surrogates included) and a spread of the others. */
function* codePoints(): Generator<string> {
  for (let cp = 0; cp <= 0xffff; cp++) yield String.fromCharCode(cp);
  for (let cp = 0x10000; cp <= 0x10ffff; cp += 0x3ff) yield String.fromCodePoint(cp);
}

describe('patterns of the API document', () => {
  it('use only syntax that JavaScript, Python and other common engines read the same way', () => {
    const patterns = patternsOf(doc);
    expect(patterns.length).toBeGreaterThan(5);
    for (const pattern of patterns) {
      // Unicode property escapes (Python's `re` refuses them); shorthand classes and `.`, whose sets differ between engines.
      expect(pattern, pattern).not.toMatch(/\\[pPsSdDwW]/);
      expect(pattern.replace(/\\./g, '').replace(/\[[^\]]*\]/g, ''), pattern).not.toContain('.');
      expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow();
      expect(() => new RegExp(pattern), pattern).not.toThrow();
    }
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)("compile with Python's re (as Python-based generators and fuzzers read them)", () => {
    const patterns = [...new Set(patternsOf(doc))];
    const script = 'import json, re, sys\nfor p in json.load(sys.stdin):\n    re.compile(p)\n';
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(patterns), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('the spelled-out sets accept and refuse exactly what the shorthand ones did, for every character in every place', () => {
    const pairs: [RegExp, RegExp][] = [
      [new RegExp(NOT_BLANK_PATTERN, 'u'), /\S/u],
      [new RegExp(TRIMMED_LINE_PATTERN, 'u'), /^\S(.*\S)?$/u],
      [new RegExp(TRIMMED_TEXT_PATTERN, 'u'), /^[^\s\p{Cc}]([^\p{Cc}]*[^\s\p{Cc}])?$/u],
      [new RegExp(Object.keys(KeyedRecord(Type.Integer()).patternProperties)[0]!, 'u'), /^(.*)$/u],
    ];
    let checked = 0;
    for (const c of codePoints()) {
      for (const text of placements(c)) {
        for (const [spelled, shorthand] of pairs) {
          if (spelled.test(text) !== shorthand.test(text)) expect.fail(`${spelled} and ${shorthand} differ on ${JSON.stringify(text)}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1_300_000);
  });

  it("a project name's edge characters: controls (C0, DEL, C1) anywhere and whitespace at either end refused, other space inside accepted", () => {
    const validate = compileValidator({ schema: CreateProjectBody, httpPart: 'body' });
    const refused = (name: string) => validate({ name }).error !== undefined;
    for (const control of ['\u0000', '\u0009', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f']) {
      for (const name of [`${control}a`, `a${control}`, `a${control}b`]) expect(refused(name), JSON.stringify(name)).toBe(true);
    }
    for (const space of [' ', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u202f', '\u3000', '\ufeff']) {
      expect(refused(`${space}a`), JSON.stringify(space)).toBe(true);
      expect(refused(`a${space}`), JSON.stringify(space)).toBe(true);
    }
    for (const name of ['a b', 'a\u00a0b', 'a\u3000b', 'a\u00a1b', 'a\ufeffb', 'é', '😀']) expect(refused(name), JSON.stringify(name)).toBe(false);
    expect(validate({ name: ' a' }).error).toMatchObject({
      slug: 'validation',
      detail: 'Has characters or a shape that is not allowed.',
      errors: [{ pointer: '/name', detail: 'Has characters or a shape that is not allowed.' }],
    });
  });
});

describe('the allowed-origin pattern', () => {
  const pattern = new RegExp(ORIGIN_PATTERN, 'u');
  // What only the URL parser knows (the pattern leaves it out): an IPv6 address's canonical form, valid punycode.
  const parserOnly = (origin: string) => origin.includes('[') || origin.includes('xn--');

  it('accepts and refuses what the route does', () => {
    const accepted = [
      'https://app.example.com',
      'https://example.com:8443',
      'https://a.b.c.d.example',
      'https://localhost',
      'https://1.2.3.4',
      'https://255.255.255.255:0',
      'https://0x10.example.com',
      'https://a-b.example.com:65535',
      'http://localhost:5173',
      'http://localhost',
    ];
    // Taken by the route, outside the pattern (only the URL parser can judge them; the field's description names them).
    const parserOnlyAccepted = ['https://xn--bcher-kva.de', 'https://[::1]'];
    const refused = [
      'https://example.com:443',
      'http://localhost:80',
      'http://example.com',
      'http://127.0.0.1:3000',
      'https://Example.com',
      'https://example.com/',
      'https://example.com/path',
      'https://user@example.com',
      'https://*.example.com',
      'https://under_score.example.com',
      'https://example.com.',
      'https://example.123',
      'https://example.0x1f',
      'https://1.2.3',
      'https://1.2.3.04',
      'https://256.1.1.1',
      'https://example.com:65536',
      'https://example.com:0443',
      'https://-a.example.com',
      'https://bücher.de',
      'ftp://example.com',
      'https://',
      'example.com',
    ];
    for (const origin of accepted) expect([origin, pattern.test(origin), originFault(origin)]).toEqual([origin, true, null]);
    for (const origin of parserOnlyAccepted) expect([origin, pattern.test(origin), originFault(origin)]).toEqual([origin, false, null]);
    for (const origin of refused) {
      expect([origin, pattern.test(origin)]).toEqual([origin, false]);
      expect(originFault(origin), origin).not.toBeNull();
    }
  });

  it('agrees with the route on generated origins and near-origins', () => {
    const label = fc.stringMatching(/^[a-z0-9x-]{1,6}$/);
    const host = fc.oneof(
      fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
      fc.array(fc.stringMatching(/^(0|[1-9][0-9]{0,3}|0x[0-9a-f]{0,2}|0[0-7]{1,3})$/), { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.')),
      fc.constantFrom('localhost', 'LOCALHOST', 'a_b', 'a..b', '.a', 'a.', 'é.com'),
    );
    const port = fc.option(fc.oneof(fc.integer({ min: 0, max: 70000 }).map(String), fc.constantFrom('', '0443', '080', 'x')), { nil: undefined });
    const origin = fc
      .tuple(fc.constantFrom('https://', 'http://', 'HTTPS://', 'ws://'), host, port, fc.constantFrom('', '', '', '/', '/a', '?q'))
      .map(([scheme, h, p, tail]) => `${scheme}${h}${p === undefined ? '' : `:${p}`}${tail}`);
    fc.assert(
      fc.property(origin, (value) => {
        fc.pre(!parserOnly(value));
        expect([value, pattern.test(value)]).toEqual([value, originFault(value) === null]);
      }),
      { numRuns: 20_000 },
    );
  });
});

/** The request schema of an operation in the committed document. */
function requestSchema(path: string, method: string): Json {
  const op = (doc.paths as Record<string, Record<string, Json>>)[path]![method]!;
  return ((op.requestBody as Json).content as Record<string, Json>)['application/json']!.schema as Json;
}
const parameter = (path: string, method: string, name: string) =>
  (doc.paths as Record<string, Record<string, { parameters: { name: string; schema: Json }[] }>>)[path]![method]!.parameters.find((p) => p.name === name)!
    .schema;

describe('request schemas state what the server enforces', () => {
  it('the longest token lifetime (a setting): in the document, checked by the route after the schema', () => {
    expect((requestSchema('/v1/tokens', 'post').properties as Json).expiresInDays).toMatchObject({ minimum: 1, maximum: 365, format: 'int32' });
    const validate = compileValidator({ schema: createTokenBody({ patMaxDays: 30, patDefaultDays: 30 }), httpPart: 'body' });
    expect((createTokenBody({ patMaxDays: 30, patDefaultDays: 30 }).properties.expiresInDays as Json).maximum).toBe(30);
    // The schema lets 366 through to the route (which answers with the range); with another fault, only that one is listed.
    expect(validate({ name: 'x', expiresInDays: 366 }).error).toBeUndefined();
    const faults = (validate({ name: '', expiresInDays: 366 }).error as unknown as { errors: { pointer: string }[] }).errors;
    expect(new Set(faults.map((fault) => fault.pointer))).toEqual(new Set(['/name']));
    expect(validate({ name: 'x', expiresInDays: 0 }).error).toMatchObject({ errors: [{ pointer: '/expiresInDays', detail: 'Must be >= 1.' }] });
  });

  it('"version or label, not both" when rendering a prompt', () => {
    expect(requestSchema('/v1/prompts/{prompt_id}/render', 'post').not).toEqual({ required: ['version', 'label'] });
    const validate = compileValidator({ schema: RenderBody, httpPart: 'body' });
    expect(validate({ version: 1, label: 'production', variables: {} }).error).toBeUndefined();
  });

  it('the shape of a cursor', () => {
    for (const path of ['/v1/projects', '/v1/tokens', '/v1/projects/{project_id}/runs']) {
      // What every cursor the service writes looks like: base64url of version 1 (`AQ`..`Af`), at least 34 bytes.
      expect(parameter(path, 'get', 'cursor')).toMatchObject({ minLength: 46, maxLength: 1024, pattern: '^A[Q-Za-f][A-Za-z0-9_-]{44,1022}$' });
    }
    // A generated "0" is not a schema-valid cursor; a real one is.
    const cursor = new RegExp(parameter('/v1/projects', 'get', 'cursor').pattern as string);
    expect(cursor.test('0')).toBe(false);
    // One fault, with the one answer for a cursor, listed beside the query's others (not one per keyword).
    expect(compileValidator({ schema: PageOnlyQuery, httpPart: 'querystring' })({ cursor: '!'.repeat(2000), limit: 'x' }).error).toMatchObject({
      errors: [
        { parameter: 'limit', detail: 'Must be of type integer.' },
        { parameter: 'cursor', detail: 'Cursor is malformed.' },
      ],
    });
  });

  it("a monitor filter's keys: the runs filters (hasScore included), metadata.<key>, and the scores' source and target (score metrics), nothing else", () => {
    const filter = (requestSchema('/v1/projects/{project_id}/monitors', 'post').properties as Json).filter as Json;
    expect(filter.additionalProperties).toBe(false);
    expect(Object.keys(filter.patternProperties as Json)).toEqual(['^metadata\\.[A-Za-z0-9_-]{1,64}!?$']);
    expect(Object.keys(filter.properties as Json)).toEqual(
      'status kind name tag model traceId sessionId userId hasMetadata hasScore experiment q parentRunId source target'.split(' '),
    );
  });

  it('the runs filters named by a pattern (metadata.<key>): an exploded object parameter whose property names follow it', () => {
    for (const path of ['/v1/projects/{project_id}/runs', '/v1/projects/{project_id}/runs/metrics']) {
      const metadata = ((doc.paths as Json)[path] as Record<string, { parameters: Json[] }>).get!.parameters.find((p) => p.name === 'metadata');
      expect(metadata).toMatchObject({
        in: 'query',
        style: 'form',
        explode: true,
        schema: { type: 'object', propertyNames: { pattern: '^metadata\\.[A-Za-z0-9_-]{1,64}!?$' }, additionalProperties: { type: 'string', maxLength: 1000 } },
      });
    }
  });

  it('an allowed origin, and the lengths that patterns imply', () => {
    const organization = requestSchema('/v1/organization', 'patch').properties as Record<string, Json>;
    expect((organization.allowedOrigins!.items as Json).pattern).toBe(ORIGIN_PATTERN);
    expect((requestSchema('/v1/prompts', 'post').properties as Record<string, Json>).name).toMatchObject({ maxLength: 100 });
    expect((requestSchema('/v1/projects/{project_id}/runs', 'post').properties as Record<string, Json>).id).toMatchObject({ maxLength: 128 });
    expect(parameter('/v1/prompts/{prompt_id}/labels/{label}', 'put', 'label')).toMatchObject({ maxLength: 64 });
  });
});
