import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { completion, failure } from '../../../test/helpers/openai-server.js';
import { EMBEDDED_PRIVATE, EMBEDDED_PUBLIC, PRIVATE_FAULT } from '../../../test/helpers/webhooks.js';
import { API_KEY, connectionsWorld, HEADER_SECRET, leakedPieces, LOCAL_ENV, localServer, uname } from './model-connections.test-support.js';

/** Model connections: admin material, organization-wide; keys and headers sealed at rest and never in an answer; the test call. */
describeEachDialect(
  'model connections',
  (ctx) => {
    const server = localServer();

    it('creates, lists, reads, changes and deletes connections; only admins see or write them', async () => {
      const { admin, member, connect, post } = await connectionsWorld(ctx);
      const name = uname('judge-openai');
      const created = await connect({
        name,
        baseUrl: `${server().baseURL}/`,
        model: 'gpt-4o-mini',
        apiKey: API_KEY,
        headers: { 'OpenAI-Organization': HEADER_SECRET },
        monthlyBudgetUsd: 25,
      });
      expect(created).toEqual({
        id: expect.stringMatching(/^mcn_/),
        name,
        baseUrl: server().baseURL,
        model: 'gpt-4o-mini',
        apiKeyHint: '…TKEY',
        headerNames: ['OpenAI-Organization'],
        monthlyBudgetUsd: 25,
        spentThisMonthUsd: 0,
        pricing: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const other = await connect({
        name: uname('local'),
        baseUrl: server().baseURL,
        model: 'acme-judge',
        monthlyBudgetUsd: 0,
        pricing: { inputPerMillion: 1, outputPerMillion: 2 },
      });
      expect(other).toMatchObject({ apiKeyHint: null, headerNames: [], pricing: { inputPerMillion: 1, outputPerMillion: 2 } });

      const get = (path = '', token = admin.token) => ctx.request('GET', `/v1/model-connections${path}`, { token });
      expect(ok(await get()).items.map((c: Json) => c.id)).toEqual([other.id, created.id]);
      expect(ok(await get(`?name=${name.slice(0, 12).toUpperCase()}`)).items.map((c: Json) => c.id)).toContain(created.id);
      expect(ok(await get(`/${created.id}`))).toEqual(created);
      expectProblem(await get('', member.token), 403, 'forbidden', 'Your role (member) does not allow quality:admin.');
      expectProblem(await get(`/${created.id}`, member.token), 403, 'forbidden');
      expectProblem(await post({ name: 'x', baseUrl: server().baseURL, model: 'gpt-4o-mini', monthlyBudgetUsd: 1 }, member), 403, 'forbidden');

      const patch = (id: string, body: Json) => ctx.request('PATCH', `/v1/model-connections/${id}`, { token: admin.token, body });
      const changed = ok(
        await patch(created.id, { monthlyBudgetUsd: 5, apiKey: 'sk-short', headers: null, pricing: { inputPerMillion: 3, outputPerMillion: 4 } }),
      );
      expect(changed).toMatchObject({ monthlyBudgetUsd: 5, apiKeyHint: '…', headerNames: [], pricing: { inputPerMillion: 3, outputPerMillion: 4 }, name });
      expect(ok(await patch(created.id, { apiKey: null }))).toMatchObject({ apiKeyHint: null });
      expectProblem(await patch(other.id, { name }), 409, 'conflict', `The organization already has a model connection named "${name}".`);
      expectProblem(await patch(other.id, {}), 400, 'validation');
      expectProblem(await patch(other.id, { pricing: null }), 400, 'validation', 'No price is known for the model "acme-judge": give pricing.');

      expect((await ctx.request('DELETE', `/v1/model-connections/${other.id}`, { token: admin.token })).statusCode).toBe(204);
      expectProblem(await get(`/${other.id}`), 404, 'not-found', `Model connection ${other.id} does not exist.`);
      expectProblem(await ctx.request('DELETE', `/v1/model-connections/${other.id}`, { token: admin.token }), 404, 'not-found');
    });

    it('refuses bad fields, each named: unknown models without pricing, framing headers, Authorization, names taken', async () => {
      const { post, connect } = await connectionsWorld(ctx);
      const base = { name: uname('c'), baseUrl: server().baseURL, model: 'gpt-4o-mini', monthlyBudgetUsd: 1 };
      const faults = async (body: Json) =>
        (expectProblem(await post({ ...base, ...body }), 400, 'validation').errors as Json[]).map((e) => [e.pointer, e.detail]);
      expect(await faults({ model: 'acme-unknown' })).toEqual([['/pricing', 'No price is known for the model "acme-unknown": give pricing.']]);
      expect(await faults({ headers: { Authorization: 'Bearer x', Host: 'x', 'x-ok': 'fine', 'X-OK': 'twice', 'Proxy-Authorization': 'x' } })).toEqual([
        ['/headers/Authorization', 'Give the key as apiKey: it is sent as Authorization: Bearer <apiKey>.'],
        ['/headers/Host', 'Host is set by the service, not by a connection.'],
        ['/headers/X-OK', 'X-OK is given twice (header names are case-insensitive).'],
        ['/headers/Proxy-Authorization', 'Proxy-Authorization is set by the service, not by a connection.'],
      ]);
      expect(await faults({ baseUrl: 'ftp://models.example.com/v1' })).toEqual([['/baseUrl', 'Must be an absolute http or https URL.']]);
      expectProblem(await post({ ...base, monthlyBudgetUsd: -1 }), 400, 'validation');
      expectProblem(await post({ ...base, apiKey: 'line\nbreak' }), 400, 'validation');
      expectProblem(await post({ ...base, apiKey: '' }), 400, 'validation');
      await connect(base);
      expectProblem(await post(base), 409, 'conflict');
    });

    it('stores the key and the headers sealed: no row holds them in clear, no answer shows them', async () => {
      const { admin, connect } = await connectionsWorld(ctx);
      const created = await connect({
        name: uname('sealed'),
        baseUrl: server().baseURL,
        model: 'gpt-4o-mini',
        apiKey: API_KEY,
        headers: { 'X-Gateway-Key': HEADER_SECRET },
        monthlyBudgetUsd: 1,
      });
      const row = await ctx.database.storage.db.selectFrom('model_connections').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(API_KEY);
      expect(stored).not.toContain(API_KEY.slice(0, 12));
      expect(stored).not.toContain(HEADER_SECRET);
      expect(row.api_key).toMatch(/^key_[0-9a-z]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(row.headers).toMatch(/^key_[0-9a-z]+\./);

      server().script(failure(401, `Incorrect API key provided: ${API_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`));
      const answers = [
        await ctx.request('GET', `/v1/model-connections/${created.id}`, { token: admin.token }),
        await ctx.request('GET', '/v1/model-connections', { token: admin.token }),
        await ctx.request('PATCH', `/v1/model-connections/${created.id}`, { token: admin.token, body: { monthlyBudgetUsd: 2 } }),
        await ctx.request('POST', `/v1/model-connections/${created.id}/test`, { token: admin.token }),
      ];
      for (const answer of answers) {
        expect(answer.body).not.toContain(API_KEY);
        expect(answer.body).not.toContain(HEADER_SECRET);
      }
      expect(answers[3]!.json()).toMatchObject({ ok: false, status: 401, retryable: false });
      expect(answers[3]!.json().problem).toContain('[redacted]');
      // What the endpoint received: the key as a bearer token, the header as given.
      const sent = server().requests.at(-1)!;
      expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(sent.headers['x-gateway-key']).toBe(HEADER_SECRET);
      expect(sent.headers['user-agent']).toBe('Sightline-Judge/1');
    });

    it('redacts the key before clipping the endpoint’s message: a key echoed at character 280 leaves no piece of itself in the answer', async () => {
      const { admin, connect } = await connectionsWorld(ctx);
      const secrets = [API_KEY, HEADER_SECRET];
      const created = await connect({
        name: uname('echo'),
        baseUrl: server().baseURL,
        model: 'gpt-4o-mini',
        apiKey: API_KEY,
        headers: { 'X-Gateway-Key': HEADER_SECRET },
        monthlyBudgetUsd: 1,
      });
      const test = async () => ok(await ctx.request('POST', `/v1/model-connections/${created.id}/test`, { token: admin.token }));
      const padding = 'Incorrect API key provided. '.repeat(10); // 280 characters
      for (const echo of [
        failure(401, `${padding}${API_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`),
        failure(401, `${padding.slice(0, 290)}${API_KEY}`), // the key across the clip
        failure(403, `${padding.slice(0, 285)}${HEADER_SECRET} is not a gateway key`),
        { status: 500, body: `<html><body>${padding.slice(0, 240)}${encodeURIComponent(API_KEY)} ${API_KEY.slice(0, 20)}</body></html>` }, // not JSON: the text itself
        completion(`${padding.slice(0, 180)} ${API_KEY}`), // content that is not a JSON object, quoted
      ]) {
        server().script(echo);
        const answer = await test();
        expect(answer.ok).toBe(false);
        expect(answer.problem).toContain('[redacted]');
        expect(leakedPieces(JSON.stringify(answer), secrets), answer.problem).toEqual([]);
      }
    });

    it('tests a connection: ok with its cost, or the problem and whether it is retryable', async () => {
      const { admin, connect } = await connectionsWorld(ctx);
      const created = await connect({ name: uname('test'), baseUrl: server().baseURL, model: 'gpt-4o-mini', apiKey: API_KEY, monthlyBudgetUsd: 1 });
      const test = async () => ok(await ctx.request('POST', `/v1/model-connections/${created.id}/test`, { token: admin.token }));
      server().script(completion('{"ok": true}', { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 }));
      expect(await test()).toEqual({
        ok: true,
        model: 'gpt-4o-mini',
        status: 200,
        latencyMs: expect.any(Number),
        costUsd: 0.00027,
        problem: null,
        retryable: null,
      });
      const asked = server().requests.at(-1)!;
      expect(asked.path).toBe('/v1/chat/completions');
      expect(asked.body).toMatchObject({ model: 'gpt-4o-mini', response_format: { type: 'json_object' } });
      server().script(failure(500, 'The server had an error'));
      expect(await test()).toMatchObject({
        ok: false,
        status: 500,
        costUsd: 0,
        problem: 'The model endpoint answered 500: The server had an error',
        retryable: true,
      });
      server().script(completion('not json'));
      expect(await test()).toMatchObject({ ok: false, status: 200, problem: 'The answer is not a JSON object: not json', retryable: false });
      expect(ok(await ctx.request('GET', `/v1/model-connections/${created.id}`, { token: admin.token })).spentThisMonthUsd).toBe(0.00054);
      expectProblem(await ctx.request('POST', `/v1/model-connections/mcn_nope/test`, { token: admin.token }), 404, 'not-found');
    });
  },
  { env: LOCAL_ENV },
);

/** The default: the SSRF guard refuses private, loopback and link-local base URLs when a connection is written. */
describeEachDialect('model connections: SSRF guard at creation', (ctx) => {
  it('refuses private base URLs with the webhook guard’s fault, at /baseUrl', async () => {
    const { admin, post, connect } = await connectionsWorld(ctx);
    for (const baseUrl of [
      'http://127.0.0.1:11434/v1',
      'http://localhost/v1',
      'http://169.254.169.254/v1',
      'http://10.0.0.1/v1',
      'http://[::1]/v1',
      'http://0x7f000001/v1',
    ]) {
      const problem = expectProblem(await post({ name: uname('c'), baseUrl, model: 'gpt-4o-mini', monthlyBudgetUsd: 1 }), 400, 'validation');
      expect(problem.errors, baseUrl).toEqual([{ pointer: '/baseUrl', detail: 'Must not target a private, loopback or link-local address.' }]);
    }
    const created = await connect({ name: uname('public'), baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', monthlyBudgetUsd: 1 });
    const patched = await ctx.request('PATCH', `/v1/model-connections/${created.id}`, { token: admin.token, body: { baseUrl: 'http://127.0.0.1/v1' } });
    expect(expectProblem(patched, 400, 'validation').errors).toEqual([
      { pointer: '/baseUrl', detail: 'Must not target a private, loopback or link-local address.' },
    ]);
  });

  it('judges an IPv6 literal that carries an IPv4 address by that address: at creation, at a change and at the test call', async () => {
    const { admin, post, connect } = await connectionsWorld(ctx);
    for (const [address] of EMBEDDED_PRIVATE) {
      const baseUrl = `http://[${address}]:8080/v1`;
      const problem = expectProblem(await post({ name: uname('c'), baseUrl, model: 'gpt-4o-mini', monthlyBudgetUsd: 1 }), 400, 'validation');
      expect(problem.errors, baseUrl).toEqual([{ pointer: '/baseUrl', detail: PRIVATE_FAULT }]);
    }
    const created = await connect({ name: uname('public'), baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', monthlyBudgetUsd: 1 });
    for (const [address] of EMBEDDED_PUBLIC) {
      const baseUrl = `http://[${address}]/v1`;
      const stored = new URL(baseUrl).href; // as the URL parser writes it: the IPv4 part in hex
      expect(ok(await ctx.request('PATCH', `/v1/model-connections/${created.id}`, { token: admin.token, body: { baseUrl } })).baseUrl).toBe(stored);
      expect(await connect({ name: uname('public'), baseUrl, model: 'gpt-4o-mini', monthlyBudgetUsd: 1 })).toMatchObject({ baseUrl: stored });
    }
    for (const [address] of EMBEDDED_PRIVATE) {
      const baseUrl = `http://[${address}]:8080/v1`;
      const patched = await ctx.request('PATCH', `/v1/model-connections/${created.id}`, { token: admin.token, body: { baseUrl } });
      expect(expectProblem(patched, 400, 'validation').errors, baseUrl).toEqual([{ pointer: '/baseUrl', detail: PRIVATE_FAULT }]);
      // Stored as one accepted while private targets were allowed would be: the call's own check refuses it, sending nothing.
      await ctx.database.storage.db.updateTable('model_connections').set({ base_url: baseUrl }).where('id', '=', created.id).execute();
      const test = ok(await ctx.request('POST', `/v1/model-connections/${created.id}/test`, { token: admin.token }));
      expect(test, baseUrl).toEqual({
        ok: false,
        model: 'gpt-4o-mini',
        status: null,
        latencyMs: expect.any(Number),
        costUsd: 0,
        problem: `The model endpoint is refused: ${PRIVATE_FAULT}`,
        retryable: false,
      });
    }
  });
});
