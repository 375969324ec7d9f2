import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, type Caller, type TestContext } from './helpers/harness.js';
import { expectValidation } from './helpers/problems.js';

/**
 * Bodies are stored as sent or refused (docs/api.md, Bodies are stored as sent, or refused): bytes that are not UTF-8, numbers that do not fit a
 * double, text that no engine stores as sent, nesting and counts that would exhaust the heap. Each is a
 * 4xx naming the place, and nothing is stored.
 */
describeEachDialect('bad input: bodies are stored exactly as sent, or refused naming the place', (ctx: TestContext) => {
  let owner: Caller;
  let projectId: string;
  const runsUrl = () => `/v1/projects/${projectId}/runs`;
  const post = (url: string, payload: string | Buffer) =>
    ctx.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, payload });
  const storedNames = async () => {
    const res = await ctx.request('GET', `${runsUrl()}?limit=100`, { token: owner.token });
    return (res.json().items as { name: string }[]).map((r) => r.name);
  };
  const run = (fields: string) => `{"name":"ok","kind":"llm","startTime":"2026-11-01T00:00:00Z"${fields}}`;

  beforeAll(async () => {
    owner = await ctx.make.caller({ role: 'owner' });
    projectId = (await ctx.make.project(owner.organizationId)).id;
  });

  it('a body that is not UTF-8 is a 400 naming the byte, never stored with U+FFFD', async () => {
    for (const bad of [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf0, 0x9f, 0x98])]) {
      const payload = Buffer.concat([Buffer.from('{"name":"x'), bad, Buffer.from('y","kind":"llm","startTime":"2026-11-01T00:00:00Z"}')]);
      expect(expectValidation(await post(runsUrl(), payload), { pointers: [''] })).toEqual([
        { pointer: '', detail: 'The body is not valid UTF-8 (at byte 10).' },
      ]);
    }
    const promptBody = Buffer.concat([Buffer.from('{"name":"utf","template":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    expect(expectValidation(await post('/v1/prompts', promptBody))).toEqual([{ pointer: '', detail: 'The body is not valid UTF-8 (at byte 29).' }]);
    // Well-formed multi-byte text is fine, and comes back byte for byte.
    const ok = await post(runsUrl(), Buffer.from(run(',"id":"utf8-ok","inputs":{"q":"café 🙂 日本"}').replace('"ok"', '"ünï"')));
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ name: 'ünï', inputs: { q: 'café 🙂 日本' } });
    expect(await storedNames()).toEqual(['ünï']);
  });

  it('a number that does not fit a double is a 400 at its pointer, never stored as null', async () => {
    for (const literal of ['1e309', '-1e400', `1${'0'.repeat(400)}`, '1.8e308', `9${'9'.repeat(307)}e1`, '1E+0309']) {
      expect(expectValidation(await post(runsUrl(), run(`,"inputs":{"a":[1,{"n":${literal}}]}`)))).toEqual([
        { pointer: '/inputs/a/1/n', detail: 'The number is out of range (it does not fit a 64-bit floating-point number).' },
      ]);
    }
    const batch = await post(`${runsUrl()}/batch`, `{"runs":[${run('')},${run(',"metadata":{"x":1e999}')}]}`);
    expect(expectValidation(batch)).toEqual([
      { pointer: '/runs/1/metadata/x', detail: 'The number is out of range (it does not fit a 64-bit floating-point number).' },
    ]);
    const monitor = await post(`/v1/projects/${projectId}/monitors`, '{"name":"m","metric":"count","window":"1h","threshold":{"op":">","value":1e309}}');
    expect(expectValidation(monitor, { pointers: ['/threshold/value'] })).toHaveLength(1);
    // The largest finite double and the smallest denormal are numbers like any other.
    const edge = await post(runsUrl(), run(',"id":"edge-numbers","inputs":{"max":1.7976931348623157e308,"min":5e-324}'));
    expect(edge.statusCode, edge.body).toBe(201);
    expect(edge.json().inputs).toEqual({ max: Number.MAX_VALUE, min: Number.MIN_VALUE });
    expect(await storedNames()).not.toContain('x');
  });

  it('an unpaired surrogate in a text field is a 400 naming it; in free-form JSON it is kept exactly', async () => {
    const lone = 'Must not contain an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape).';
    const before = await storedNames();
    expect(expectValidation(await post(runsUrl(), '{"name":"a\\ud800b","kind":"llm","startTime":"2026-11-01T00:00:00Z"}'))).toEqual([
      { pointer: '/name', detail: lone },
    ]);
    expect(expectValidation(await post(runsUrl(), run(',"tags":["ok","\\udc00"]')))).toEqual([{ pointer: '/tags', detail: lone }]);
    expect(expectValidation(await post(runsUrl(), run(',"model":"gpt\\udbff"')))).toEqual([{ pointer: '/model', detail: lone }]);
    const batch = await post(`${runsUrl()}/batch`, `{"runs":[${run(',"id":"pair-ok"')},{"name":"\\ud83d","kind":"llm","startTime":"2026-11-01T00:00:00Z"}]}`);
    expect(batch.statusCode, batch.body).toBe(200);
    expect(batch.json().results.map((r: { status: string }) => r.status)).toEqual(['created', 'rejected']);
    expect(batch.json().results[1].problem.errors).toEqual([{ pointer: '/runs/1/name', detail: lone }]);
    expect(expectValidation(await post('/v1/projects', '{"name":"p\\ud800"}'))).toEqual([{ pointer: '/name', detail: lone }]);
    // A pair is a character like any other; inputs keep even a lone half exactly as sent.
    const kept = await post(runsUrl(), run(',"id":"kept","inputs":{"cut":"trunc\\ud83d","emoji":"\\ud83d\\ude00"}').replace('"ok"', '"\\ud83d\\ude00"'));
    expect(kept.statusCode, kept.body).toBe(201);
    const read = await ctx.request('GET', `${runsUrl()}/kept`, { token: owner.token });
    expect(read.json()).toMatchObject({ name: '\ud83d\ude00', inputs: { cut: 'trunc\ud83d', emoji: '\ud83d\ude00' } });
    expect((await storedNames()).length).toBe(before.length + 2);
  });

  it('a prompt config nested 5,000 levels deep is a 400 at /config, not a 500', async () => {
    const nest = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    for (const depth of [101, 5_000]) {
      const res = await post('/v1/prompts', `{"name":"deep-${depth}","template":"hi","config":${nest(depth)}}`);
      expect(expectValidation(res)).toEqual([{ pointer: '/config', detail: 'Must not nest more than 100 levels deep.' }]);
    }
    const created = await post('/v1/prompts', `{"name":"deep-ok","template":"hi","config":${nest(99)}}`);
    expect(created.statusCode, created.body).toBe(201);
    const version = await post('/v1/prompts/deep-ok/versions', `{"template":"hi","config":${nest(5_000)}}`);
    expect(expectValidation(version)).toEqual([{ pointer: '/config', detail: 'Must not nest more than 100 levels deep.' }]);
  });

  it('a body of more objects and arrays, or values, than the heap can hold safely is a 413 problem', async () => {
    const arrays = `{"runs":[${run(`,"inputs":{"a":[${Array.from({ length: 100_001 }, () => '[]').join(',')}]}`)}]}`;
    const manyArrays = await post(`${runsUrl()}/batch`, arrays);
    expect(expectProblem(manyArrays, 413, 'payload-too-large').detail).toBe(
      'The body holds more than 100,000 objects and arrays; send less at once (for example fewer runs per batch).',
    );
    const keys = run(`,"inputs":{${Array.from({ length: 250_001 }, (_, i) => `"k${i}":1`).join(',')}}`);
    expect(expectProblem(await post(runsUrl(), keys), 413, 'payload-too-large').detail).toBe(
      'The body holds more than 250,000 values; send less at once (for example fewer runs per batch).',
    );
    // Commas and brackets inside strings are text, not values.
    const text = run(`,"id":"brackets-in-text","inputs":{"code":${JSON.stringify('[{},'.repeat(300_000))}}`);
    const accepted = await post(runsUrl(), text);
    expect(accepted.statusCode, accepted.body.slice(0, 300)).toBe(201);
  });

  describe('properties', () => {
    it('any string as a run name is stored and read back exactly, or refused with a 400 at /name', async () => {
      const g = (await ctx.make.project(owner.organizationId)).id;
      let i = 0;
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), async (name) => {
          const id = `name-${i++}`;
          const res = await post(`/v1/projects/${g}/runs`, JSON.stringify({ id, name, kind: 'tool', startTime: '2026-11-01T00:00:00Z' }));
          if (res.statusCode === 400) {
            expect(expectValidation(res).map((e) => e.pointer)).toEqual(['/name']);
            return;
          }
          expect(res.statusCode, res.body).toBe(201);
          expect(res.json().name).toBe(name);
          const read = await ctx.request('GET', `/v1/projects/${g}/runs/${id}`, { token: owner.token });
          expect(read.json().name).toBe(name);
          const listed = await ctx.request('GET', `/v1/projects/${g}/runs?name=${encodeURIComponent(name)}&kind=tool`, { token: owner.token });
          expect(listed.json().items.map((r: { id: string }) => r.id)).toContain(id);
        }),
        { numRuns: 120 },
      );
    });

    it('any JSON value as run inputs is stored and read back exactly (deep-equal), or refused with a 400', async () => {
      const g = (await ctx.make.project(owner.organizationId)).id;
      let i = 0;
      const inputs = fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }), { maxKeys: 5 });
      await fc.assert(
        fc.asyncProperty(inputs, async (value) => {
          const id = `inputs-${i++}`;
          const res = await post(`/v1/projects/${g}/runs`, JSON.stringify({ id, name: 'p', kind: 'tool', startTime: '2026-11-01T00:00:00Z', inputs: value }));
          if (res.statusCode === 400) {
            expect(expectValidation(res).every((e) => e.pointer?.startsWith('/inputs'))).toBe(true);
            return;
          }
          expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
          const read = await ctx.request('GET', `/v1/projects/${g}/runs/${id}`, { token: owner.token });
          expect(read.json().inputs).toStrictEqual(JSON.parse(JSON.stringify(value)));
        }),
        { numRuns: 120 },
      );
    });
  });
});
