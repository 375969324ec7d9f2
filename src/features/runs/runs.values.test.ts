import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { allItems, ok } from '../../../test/helpers/json.js';
import { valueRange } from '../../db/distinct.js';
import { describeRuns, iso, NOW, projectFor } from './runs.test-support.js';

/** GET /v1/projects/{id}/runs/values: each field's distinct values, in code-point order, a page at a time. */
describeRuns('values', (ctx) => {
  const at = (i: number) => iso(NOW - 3_600_000 + i * 1000);
  const FIELD_FAULT = 'Must be one of: "name", "model", "tag", "userId", "sessionId", "metadataKey", "metadataValue".';

  async function seeded() {
    const p = await projectFor(ctx);
    await p.seed([
      {
        name: 'b',
        kind: 'llm',
        startTime: at(1),
        model: 'gpt-4o',
        tags: ['prod', 'eu'],
        sessionId: 's-2',
        userId: 'ada',
        metadata: { env: 'prod', attempt: 2, flag: true, none: null },
      },
      { name: 'a', kind: 'llm', startTime: at(2), model: 'gpt-4o-mini', tags: ['prod'], sessionId: 's-1', metadata: { env: 'dev', attempt: '2' } },
      { name: 'B', kind: 'chain', startTime: at(3), tags: ['Eu'], userId: 'bob', metadata: { attempt: 3, flag: false, nested: { x: 1 }, list: [1] } },
      // Listed by code point: é (U+00E9) after every ASCII letter, 😀 (U+1F600) after U+FFFD, whatever UTF-16 says.
      { name: 'é', kind: 'tool', startTime: at(4), userId: 'ada', metadata: { env: 'prod ', long: 'x'.repeat(257), 'bad key': 'x', 'dotted.key': 'y' } },
      { name: '😀', kind: 'tool', startTime: at(5), metadata: { env: '\ufffd' } },
      { name: 'a', kind: 'tool', startTime: at(6), sessionId: 's-1', metadata: { env: '😀' } },
    ]);
    return p;
  }
  const values = async (p: { id: string; caller: { token: string } }, query: string, limit = 100) =>
    (await allItems(ctx.request, p.caller.token, `/v1/projects/${p.id}/runs/values?${query}`, limit)).map((item) => {
      expect(Object.keys(item)).toEqual(['value']);
      return item.value as string;
    });

  it('lists each field’s distinct values in code-point order, nulls and repeats left out', async () => {
    const p = await seeded();
    expect(await values(p, 'field=name')).toEqual(['B', 'a', 'b', 'é', '😀']);
    expect(await values(p, 'field=model')).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(await values(p, 'field=tag')).toEqual(['Eu', 'eu', 'prod']);
    expect(await values(p, 'field=sessionId')).toEqual(['s-1', 's-2']);
    expect(await values(p, 'field=userId')).toEqual(['ada', 'bob']);
    // The keys the metadata.<key> filters take (not `bad key` nor `dotted.key`), whatever their values.
    expect(await values(p, 'field=metadataKey')).toEqual(['attempt', 'env', 'flag', 'list', 'long', 'nested', 'none']);
    expect(await values(p, 'field=metadataValue&key=env')).toEqual(['dev', 'prod', 'prod ', '\ufffd', '😀']);
    // 2 and "2" are one value, as the filter takes them; numbers, booleans and null as their JSON text.
    expect(await values(p, 'field=metadataValue&key=attempt')).toEqual(['2', '3']);
    expect(await values(p, 'field=metadataValue&key=flag')).toEqual(['false', 'true']);
    expect(await values(p, 'field=metadataValue&key=none')).toEqual(['null']);
    // What no filter can name: objects, arrays, text past 256 characters; and keys no run has.
    for (const key of ['nested', 'list', 'long', 'absent']) expect(await values(p, `field=metadataValue&key=${key}`)).toEqual([]);
  });

  it('gives values the filter of the same name selects runs by', async () => {
    const p = await seeded();
    for (const [field, filter] of [
      ['name', 'name'],
      ['model', 'model'],
      ['tag', 'tag'],
      ['sessionId', 'sessionId'],
      ['userId', 'userId'],
    ]) {
      for (const value of await values(p, `field=${field}`)) {
        expect((await p.ids({ [filter!]: value })).length, `${filter}=${value}`).toBeGreaterThan(0);
      }
    }
    for (const key of await values(p, 'field=metadataKey')) {
      expect((await p.ids({ hasMetadata: key })).length, `hasMetadata=${key}`).toBeGreaterThan(0);
      for (const value of await values(p, `field=metadataValue&key=${key}`)) {
        expect((await p.ids({ [`metadata.${key}`]: value })).length, `metadata.${key}=${value}`).toBeGreaterThan(0);
      }
    }
  });

  it('walks every page to the end at any limit, each value once, in order', async () => {
    const p = await projectFor(ctx);
    const names = Array.from({ length: 53 }, (_, i) => `step-${String(i).padStart(2, '0')}`);
    const sessions = Array.from({ length: 53 }, (_, i) => `conv-${String(i).padStart(2, '0')}`);
    // Each value on two runs, in an order that is not the values' own.
    const runs = [...names, ...names].map((name, i) => ({ name, kind: 'llm', startTime: at((i * 37) % 106), sessionId: sessions[(i * 11) % 53] }));
    await p.seed(runs);
    for (const limit of [1, 7, 25, 100]) {
      expect(await values(p, 'field=name', limit), `limit ${limit}`).toEqual(names);
      expect(await values(p, 'field=sessionId', limit), `limit ${limit}`).toEqual(sessions);
    }
    const first = ok(await ctx.request('GET', `/v1/projects/${p.id}/runs/values?field=name`, { token: p.caller.token }));
    expect(first).toMatchObject({ limit: 25, items: names.slice(0, 25).map((value) => ({ value })) });
    expect(typeof first.nextCursor).toBe('string');
    const last = ok(await ctx.request('GET', `/v1/projects/${p.id}/runs/values?field=name&limit=3&cursor=${first.nextCursor}`, { token: p.caller.token }));
    expect(last.items.map((i: { value: string }) => i.value)).toEqual(names.slice(25, 28));
  });

  it('narrows to the values that start with a prefix, case-sensitively', async () => {
    const p = await seeded();
    await p.seed([
      { name: 'chat.completion', kind: 'llm', startTime: at(7), sessionId: 'chat-9', metadata: { env: 'production' } },
      { name: 'Chat', kind: 'llm', startTime: at(8), sessionId: 'Chat-1', metadata: { env: 'pro' } },
      { name: 'chat', kind: 'llm', startTime: at(9), sessionId: 'chatter' },
      { name: 'chaT', kind: 'llm', startTime: at(10) },
      { name: 'chau', kind: 'llm', startTime: at(11) },
    ]);
    expect(await values(p, 'field=name&prefix=chat')).toEqual(['chat', 'chat.completion']);
    expect(await values(p, 'field=name&prefix=Chat')).toEqual(['Chat']);
    expect(await values(p, 'field=name&prefix=chat.completion.')).toEqual([]);
    expect(await values(p, `field=name&prefix=${encodeURIComponent('é')}`)).toEqual(['é']);
    expect(await values(p, `field=name&prefix=${encodeURIComponent('😀')}`)).toEqual(['😀']);
    expect(await values(p, 'field=sessionId&prefix=chat')).toEqual(['chat-9', 'chatter']);
    expect(await values(p, 'field=metadataValue&key=env&prefix=pro', 1)).toEqual(['pro', 'prod', 'prod ', 'production']);
    // A walk with a prefix goes on from its cursor within the prefix.
    expect(await values(p, 'field=sessionId&prefix=chat', 1)).toEqual(['chat-9', 'chatter']);
  });

  it('bounds a prefix range by the next code point (the one after U+D7FF is U+E000), open after the last one', () => {
    expect(valueRange('ab', null)).toEqual({ after: null, from: 'ab', to: 'ac' });
    expect(valueRange('a\ud7ff', 'x')).toEqual({ after: 'x', from: 'a\ud7ff', to: 'a\ue000' });
    expect(valueRange('a😀', null)).toEqual({ after: null, from: 'a😀', to: 'a😁' });
    expect(valueRange('a\u{10ffff}', null)).toEqual({ after: null, from: 'a\u{10ffff}', to: null });
    expect(valueRange(undefined, 'x')).toEqual({ after: 'x', from: null, to: null });
  });

  it('keeps each project’s values to itself, and other organizations out', async () => {
    const p = await seeded();
    const sibling = await ctx.make.project(p.caller.organizationId);
    await ctx.make.runs(sibling.id, 2, (i) => ({ name: `secret-${i}`, tags: ['hidden'], sessionId: 'hidden-session', metadata: { env: 'hidden' } }));
    expect(await values(p, 'field=name')).toEqual(['B', 'a', 'b', 'é', '😀']);
    expect(await values(p, 'field=tag')).not.toContain('hidden');
    expect(await values(p, 'field=sessionId')).not.toContain('hidden-session');
    expect(await values(p, 'field=metadataValue&key=env')).not.toContain('hidden');
    expect(await values({ id: sibling.id, caller: p.caller }, 'field=name')).toEqual(['secret-0', 'secret-1']);

    const stranger = await ctx.make.caller({ role: 'owner' });
    for (const query of ['field=name', 'field=sessionId', 'field=metadataValue&key=env']) {
      expectProblem(
        await ctx.request('GET', `/v1/projects/${p.id}/runs/values?${query}`, { token: stranger.token }),
        404,
        'not-found',
        `Project ${p.id} does not exist.`,
      );
    }
    // A cursor is bound to its project and its field.
    const page = ok(await ctx.request('GET', `/v1/projects/${p.id}/runs/values?field=name&limit=1`, { token: p.caller.token }));
    for (const url of [`/v1/projects/${sibling.id}/runs/values?field=name`, `/v1/projects/${p.id}/runs/values?field=model`]) {
      expectProblem(await ctx.request('GET', `${url}&cursor=${page.nextCursor}`, { token: p.caller.token }), 400, 'validation', 'Cursor is malformed.');
    }
  });

  it('refuses an unknown field, a missing or extra key and a bad prefix with validation problems', async () => {
    const p = await projectFor(ctx);
    const refused = async (query: string, detail: string, parameter: string) => {
      const body = expectProblem(await ctx.request('GET', `/v1/projects/${p.id}/runs/values${query}`, { token: p.caller.token }), 400, 'validation', detail);
      expect(body).toMatchObject({ title: 'Validation failed', errors: [{ parameter, detail }] });
    };
    await refused('?field=bogus', FIELD_FAULT, 'field');
    await refused('?field=Name', FIELD_FAULT, 'field');
    await refused('', "Missing required field 'field'.", 'field');
    await refused('?field=metadataValue', 'Required with field=metadataValue: the metadata key whose values are listed.', 'key');
    await refused('?field=name&key=env', 'Only with field=metadataValue: the metadata key whose values are listed.', 'key');
    await refused('?field=metadataKey&key=env', 'Only with field=metadataValue: the metadata key whose values are listed.', 'key');
    await refused('?field=metadataValue&key=bad%20key', 'Has characters or a shape that is not allowed.', 'key');
    await refused('?field=name&prefix=', 'Must NOT have fewer than 1 characters.', 'prefix');
    await refused(`?field=name&prefix=${'x'.repeat(257)}`, 'Must NOT have more than 256 characters.', 'prefix');
    await refused('?field=name&status=running', "Unknown field 'status'.", 'status');
    // Another project's caller is told the project does not exist only once the request is well formed.
    const stranger = await ctx.make.caller({ role: 'owner' });
    expectProblem(await ctx.request('GET', `/v1/projects/${p.id}/runs/values?field=metadataValue`, { token: stranger.token }), 400, 'validation');
  });

  it('lists what a change adds, keeps what it took away, and forgets a deleted project’s values', async () => {
    const p = await projectFor(ctx);
    const [run] = await p.seed([{ id: 'r1', name: 'turn', kind: 'llm', startTime: at(1), tags: ['draft'], metadata: { phase: 'start' } }]);
    expect(run).toMatchObject({ status: 'created' });
    ok(await p.patch('r1', { tags: ['final'], metadata: { phase: 'done', reviewer: 'ada' } }));
    // Values are listed as runs were stored: `draft` and `start` no run has any more stay listed (documented).
    expect(await values(p, 'field=tag')).toEqual(['draft', 'final']);
    expect(await values(p, 'field=metadataKey')).toEqual(['phase', 'reviewer']);
    expect(await values(p, 'field=metadataValue&key=phase')).toEqual(['done', 'start']);

    const db = ctx.database.storage.db;
    const kept = async () => (await db.selectFrom('run_values').select('value').where('project_id', '=', p.id).execute()).length;
    expect(await kept()).toBeGreaterThan(0);
    const owner = await ctx.make.caller({ role: 'owner', organizationId: p.caller.organizationId });
    expect((await ctx.request('DELETE', `/v1/projects/${p.id}`, { token: owner.token })).statusCode).toBe(204);
    expect(await kept()).toBe(0);
  });
});
