/**
 * OWASP API Security Top 10 (2023), risk by risk, against the real app on every dialect.
 * Each block names the risk it covers; the deeper matrices live in tenancy/auth/bad-input/pagination
 * tests, this file is the cross-cutting checklist an auditor would walk through.
 */
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT, generateKeyPair, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../src/lib/keys.js';
import { newId } from '../src/lib/ids.js';
import { describeEachDialect, expectProblem, PUBLIC_URL, type Caller } from './helpers/harness.js';
import { b64url, craftToken, expectUnauthorized, registerRow, tokenHash, AUDIENCE, nowSeconds, patClaims } from './helpers/auth.js';
import { expectCleanProblem, expectValidation } from './helpers/problems.js';
import {
  type Method,
  PAT_TYP,
  unique,
  validRun,
  validMonitor,
  type World,
  buildWorld,
  monitorPath,
  ID_ROUTES,
  ADMIN_ROUTES,
  send,
  snapshot,
  keysOf,
  SECRET_KEYS,
  MODEL_API_KEY,
} from './owasp/world.js';

describeEachDialect('OWASP API Security Top 10 (2023)', (ctx) => {
  const db = () => ctx.database.storage.db;
  let outsider: Caller;
  let outsiderProjectId: string;

  beforeAll(async () => {
    outsider = await ctx.make.caller({ role: 'owner' });
    outsiderProjectId = (await ctx.make.project(outsider.organizationId)).id;
    await ctx.make.runs(outsiderProjectId, 3);
  });

  // ───────────────────────────── API1:2023 Broken Object Level Authorization ─────────────────────────────
  describe('API1:2023 Broken Object Level Authorization', () => {
    for (const r of ID_ROUTES) {
      it(`${r.method} ${r.route} from another organization → 404 (as for a missing id), nothing changes; its owner gets ${r.ok}`, async () => {
        const w = await buildWorld(ctx);
        const before = await snapshot(ctx, w);

        const res = await send(ctx, outsider, r, w);
        const body = expectProblem(res, 404, 'not-found');
        expectCleanProblem(res, [
          w.projectId,
          w.runId,
          w.spareTokenId,
          w.member.userId,
          w.invitationId,
          w.promptId,
          w.monitorId,
          w.modelId,
          w.datasetId,
          w.itemId,
        ]);

        // Indistinguishable from an id that does not exist at all.
        const ghost: World = {
          ...w,
          projectId: newId('prj'),
          runId: newId('run'),
          spareTokenId: newId('tok'),
          invitationId: newId('inv'),
          promptId: newId('prm'),
          monitorId: newId('mon'),
          modelId: newId('mdl'),
          viewId: newId('vew'),
          sessionId: 'no-such-session',
          userId: 'no-such-user',
          scoreId: newId('scr'),
          scoreConfigId: newId('scc'),
          datasetId: newId('ds'),
          itemId: newId('dsi'),
          queueId: newId('aq'),
          annotationItemId: newId('aqi'),
          evaluatorId: newId('evr'),
          member: { ...w.member, userId: newId('usr') },
        };
        const missing = await send(ctx, outsider, r, ghost);
        const body2 = expectProblem(missing, 404, 'not-found');
        const strip = (b: Record<string, unknown>, ids: string[]) => ids.reduce((d, id) => d.split(id).join('<id>'), String(b.detail));
        const idsOf = (x: World) => [
          x.projectId,
          x.runId,
          x.spareTokenId,
          x.member.userId,
          ghost.datasetId,
          ghost.itemId,
          x.invitationId,
          x.promptId,
          x.monitorId,
          x.modelId,
          x.viewId,
          x.sessionId,
          x.userId,
          x.scoreId,
          x.scoreConfigId,
          x.datasetId,
          x.itemId,
          x.queueId,
          x.annotationItemId,
          x.evaluatorId,
        ];
        expect(strip(body, idsOf(w))).toBe(strip(body2, idsOf(ghost)));

        expect(await snapshot(ctx, w)).toEqual(before);

        const own = await send(ctx, w.owner, r, w);
        expect(own.statusCode, own.body).toBe(r.ok);
      });
    }

    it("a monitor id of another organization, sent through the attacker's own project: 404 on every monitor route, nothing changes", async () => {
      const w = await buildWorld(ctx);
      const before = await snapshot(ctx, w);
      const attacker: World = { ...w, projectId: outsiderProjectId };
      for (const r of ID_ROUTES.filter((x) => x.route.includes('{monitor_id}'))) {
        const res = await send(ctx, outsider, r, attacker);
        expectProblem(res, 404, 'not-found');
        expectCleanProblem(res, [w.monitorId, outsiderProjectId]);
        expect(res.body.includes(w.webhookSecret), r.route).toBe(false);
      }
      expect(await snapshot(ctx, w)).toEqual(before);
    });

    it("a runs cursor replayed by another organization's caller: 404 on the victim's project (the project check comes first and must not reveal it), 400 `Cursor is malformed.` on the caller's own project (the cursor is bound to organization and project)", async () => {
      const w = await buildWorld(ctx);
      await ctx.make.runs(w.projectId, 12);
      const page1 = await ctx.request('GET', `/v1/projects/${w.projectId}/runs?limit=5`, { token: w.owner.token });
      expect(page1.statusCode, page1.body).toBe(200);
      const cursor = page1.json().nextCursor as string;
      expect(typeof cursor).toBe('string');

      // Control: the cursor works for its own list and caller.
      const page2 = await ctx.request('GET', `/v1/projects/${w.projectId}/runs?limit=5&cursor=${cursor}`, { token: w.owner.token });
      expect(page2.statusCode, page2.body).toBe(200);
      expect(page2.json().items).toHaveLength(5);

      // The victim's project: the outsider cannot see it, so the answer is the same 404 as without a cursor.
      const onVictim = await ctx.request('GET', `/v1/projects/${w.projectId}/runs?limit=5&cursor=${cursor}`, { token: outsider.token });
      expectProblem(onVictim, 404, 'not-found');
      // The outsider's own project: the cursor fails authentication (organization and parent are bound).
      const onOwn = await ctx.request('GET', `/v1/projects/${outsiderProjectId}/runs?limit=5&cursor=${cursor}`, { token: outsider.token });
      expectValidation(onOwn, { parameters: ['cursor'] }, [cursor]);
      expectProblem(onOwn, 400, 'validation', 'Cursor is malformed.');

      // The same for the organization-wide projects list.
      await ctx.make.project(w.owner.organizationId);
      const projects = await ctx.request('GET', '/v1/projects?limit=1', { token: w.owner.token });
      const projectsCursor = projects.json().nextCursor as string;
      expect(typeof projectsCursor).toBe('string');
      expectProblem(
        await ctx.request('GET', `/v1/projects?limit=1&cursor=${projectsCursor}`, { token: outsider.token }),
        400,
        'validation',
        'Cursor is malformed.',
      );
    });
  });

  // ───────────────────────────── API2:2023 Broken Authentication ─────────────────────────────
  describe('API2:2023 Broken Authentication', () => {
    let victim: Caller;
    let kid: string;
    let serviceKey: CryptoKey;
    let attackerKey: CryptoKey;
    const claims = (overrides: Record<string, unknown> = {}) => patClaims(victim, overrides);
    /** Gives the forged token a matching row, so only the JWT checks can refuse it. */
    const present = async (token: string, url = '/v1/me') => {
      await registerRow(db(), token, { userId: victim.userId, organizationId: victim.organizationId, expiresAt: Date.now() + 3_600_000 });
      return ctx.request('GET', url, { headers: { authorization: `Bearer ${token}` } });
    };

    beforeAll(async () => {
      victim = await ctx.make.caller({ role: 'owner' });
      const keys = new Keyring(db(), ctx.clock);
      await keys.init();
      kid = keys.signingKey().kid;
      serviceKey = keys.signingKey().privateKey;
      attackerKey = (await generateKeyPair('ES256', { extractable: true })).privateKey;
    });

    it('control: a token crafted with the service key and a row is accepted', async () => {
      const res = await present(await craftToken({ alg: 'ES256', kid, typ: PAT_TYP }, claims(), { alg: 'ES256', key: serviceKey }));
      expect(res.statusCode, res.body).toBe(200);
    });

    it('alg "none" (unsigned, or with a junk signature) → 401 invalid_token with WWW-Authenticate', async () => {
      for (const alg of ['none', 'None', 'NONE']) {
        for (const signature of ['', 'AAAA']) {
          const token = await craftToken({ alg, kid, typ: PAT_TYP }, claims(), { alg: 'none', signature });
          expectUnauthorized(await present(token), 'invalid_token', token);
        }
      }
    });

    it('a wrong signature (attacker key under our kid, a flipped bit, HS256 keyed with the public JWK) → 401 invalid_token', async () => {
      const attacker = await craftToken({ alg: 'ES256', kid, typ: PAT_TYP }, claims(), { alg: 'ES256', key: attackerKey });
      expectUnauthorized(await present(attacker), 'invalid_token', attacker);

      const [h, p, s] = victim.token.split('.') as [string, string, string];
      const bytes = Buffer.from(s, 'base64url');
      bytes[7] = bytes[7]! ^ 0x01;
      const flipped = `${h}.${p}.${b64url(bytes)}`;
      expectUnauthorized(await ctx.request('GET', '/v1/me', { token: flipped }), 'invalid_token', flipped);

      const jwks = (await ctx.request('GET', '/.well-known/jwks.json')).body;
      const confused = await craftToken({ alg: 'HS256', kid, typ: PAT_TYP }, claims(), { alg: 'HS256', secret: jwks });
      expectUnauthorized(await present(confused), 'invalid_token', confused);
    });

    it('an expired token (genuinely signed by the service) → 401 token_expired', async () => {
      const iat = nowSeconds() - 7200;
      const token = await new SignJWT({ org: victim.organizationId })
        .setProtectedHeader({ alg: 'ES256', kid, typ: PAT_TYP })
        .setIssuer(PUBLIC_URL)
        .setAudience(AUDIENCE)
        .setSubject(victim.userId)
        .setJti(newId('tok'))
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(nowSeconds() - 1)
        .sign(serviceKey);
      expectUnauthorized(await present(token), 'token_expired', token);
    });

    it('a valid token in the query string (?access_token=, ?token=) without a header is ignored → 401 missing_token', async () => {
      for (const param of ['access_token', 'token', 'bearer', 'jwt']) {
        const res = await ctx.request('GET', `/v1/me?${param}=${victim.token}`);
        expectUnauthorized(res, 'missing_token', victim.token);
      }
      // Nor in a cookie or another header that some frameworks read.
      const res = await ctx.request('GET', '/v1/me', {
        headers: { cookie: `token=${victim.token}; access_token=${victim.token}`, 'x-access-token': victim.token },
      });
      expectUnauthorized(res, 'missing_token', victim.token);
    });
  });

  // ───────────────────────────── API3:2023 Broken Object Property Level Authorization ─────────────────────────────
  describe('API3:2023 Broken Object Property Level Authorization', () => {
    it('no response exposes a secret or internal field (token hashes, private key parts, content hashes, stored docs, snake_case columns)', async () => {
      const w = await buildWorld(ctx);
      const created = await ctx.request('POST', `/v1/projects/${w.projectId}/runs`, {
        token: w.owner.token,
        body: { ...validRun(), metadata: { env: 'prod' }, tags: ['t1'] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const runId = created.json().id as string;
      const minted = await ctx.request('POST', '/v1/tokens', { token: w.owner.token, body: { name: 'walk' } });
      expect(minted.statusCode, minted.body).toBe(201);
      const mintedToken = minted.json().token as string;

      const walk: [string, LightMyRequestResponse][] = [];
      for (const url of [
        '/v1/me',
        '/v1/tokens',
        '/v1/organization',
        '/v1/organization/tokens',
        '/v1/organization/members',
        '/v1/organization/invitations',
        '/v1/projects',
        `/v1/projects/${w.projectId}`,
        `/v1/projects/${w.projectId}/runs`,
        `/v1/projects/${w.projectId}/runs/${runId}`,
        `/v1/projects/${w.projectId}/runs/metrics`,
        `/v1/projects/${w.projectId}/monitors`,
        monitorPath(w),
        monitorPath(w, '/metrics'),
        monitorPath(w, '/events'),
        monitorPath(w, '/deliveries'),
        '/v1/model-connections',
        `/v1/model-connections/${w.modelConnectionId}`,
        '/.well-known/jwks.json',
      ]) {
        const res = await ctx.request('GET', url, { token: w.owner.token });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        walk.push([url, res]);
      }
      walk.push(['POST …/runs', created], ['POST /v1/tokens', minted]);

      // Values that must never leave the server, read from the database.
      const tokenRows = await db().selectFrom('personal_access_tokens').select(['token_hash']).where('organization_id', '=', w.owner.organizationId).execute();
      const runRow = await db().selectFrom('runs').select(['content_hash']).where('id', '=', runId).executeTakeFirstOrThrow();
      const keyRows = await db().selectFrom('service_keys').select(['private_key']).execute();
      const privateParts = keyRows.flatMap((k) => {
        try {
          const jwk = JSON.parse(k.private_key) as Record<string, unknown>;
          return typeof jwk.d === 'string' ? [jwk.d] : [];
        } catch {
          return [k.private_key];
        }
      });
      const monitorRow = await db().selectFrom('monitors').select(['webhook_secret']).where('id', '=', w.monitorId).executeTakeFirstOrThrow();
      const connectionRow = await db().selectFrom('model_connections').select(['api_key']).where('id', '=', w.modelConnectionId).executeTakeFirstOrThrow();
      const secrets = [
        ...tokenRows.map((r) => r.token_hash),
        runRow.content_hash,
        ...privateParts,
        tokenHash(w.owner.token),
        tokenHash(mintedToken),
        monitorRow.webhook_secret,
        // The webhook signing secret is shown once, in the answer that creates (or rotates) it; never again.
        w.webhookSecret,
        w.webhookSecret.slice('whsec_'.length),
        // A model connection's key is never shown, sealed or in clear.
        connectionRow.api_key!,
        MODEL_API_KEY,
      ].filter((s) => s && s.length >= 16);
      expect(secrets.length).toBeGreaterThanOrEqual(7);

      for (const [url, res] of walk) {
        const keys = keysOf(res.json());
        for (const k of [...SECRET_KEYS, 'webhookSecret', 'webhook_secret'])
          expect(keys.has(k), `${url} exposes "${k}": ${res.body.slice(0, 300)}`).toBe(false);
        for (const k of keys) expect(k, `${url} exposes a storage column`).not.toMatch(/_/);
        for (const s of secrets) expect(res.body.includes(s), `${url} leaks a stored secret`).toBe(false);
        // The token string itself appears only in the one answer that mints it.
        if (url !== 'POST /v1/tokens') {
          expect(res.body.includes(w.owner.token), `${url} echoes the caller's token`).toBe(false);
          expect(res.body.includes(mintedToken), `${url} echoes a token string`).toBe(false);
          expect(keys.has('token') && url !== '/v1/me', `${url} has a token field`).toBe(false);
        }
      }
      // /v1/me's `token` is the credential's description, not the secret.
      expect(Object.keys(walk[0]![1].json().token).sort()).toEqual(['expiresAt', 'id', 'kind', 'projectIds', 'scopes']);
    });

    it('mass assignment is refused: role, ids, timestamps, organization and plan in bodies → 400 naming the field, nothing changes', async () => {
      const w = await buildWorld(ctx);
      const orgBefore = (await ctx.request('GET', '/v1/organization', { token: w.owner.token })).json();
      const monitorsBefore = await snapshot(ctx, w);
      const projectBefore = (await ctx.request('GET', `/v1/projects/${w.projectId}`, { token: w.owner.token })).json();
      const cases: [Method, string, Record<string, unknown>, string][] = [
        ['POST', '/v1/projects', { name: unique('p'), role: 'admin' }, '/role'],
        ['POST', '/v1/projects', { name: unique('p'), organizationId: outsider.organizationId }, '/organizationId'],
        ['POST', '/v1/projects', { name: unique('p'), id: newId('prj') }, '/id'],
        ['POST', '/v1/projects', { name: unique('p'), createdAt: '2020-01-01T00:00:00.000Z' }, '/createdAt'],
        ['PATCH', `/v1/projects/${w.projectId}`, { role: 'owner' }, '/role'],
        ['PATCH', `/v1/projects/${w.projectId}`, { organizationId: outsider.organizationId }, '/organizationId'],
        ['PATCH', `/v1/projects/${w.projectId}`, { id: newId('prj') }, '/id'],
        ['PATCH', `/v1/projects/${w.projectId}`, { description: 'x', createdAt: '2020-01-01T00:00:00.000Z' }, '/createdAt'],
        ['POST', `/v1/projects/${w.projectId}/runs`, { ...validRun(), organizationId: outsider.organizationId }, '/organizationId'],
        ['POST', `/v1/projects/${w.projectId}/runs`, { ...validRun(), projectId: outsiderProjectId }, '/projectId'],
        ['POST', `/v1/projects/${w.projectId}/runs`, { ...validRun(), createdAt: '2020-01-01T00:00:00.000Z' }, '/createdAt'],
        ['PATCH', `/v1/projects/${w.projectId}/runs/${w.runId}`, { id: newId('run') }, '/id'],
        ['PATCH', `/v1/projects/${w.projectId}/runs/${w.runId}`, { projectId: outsiderProjectId }, '/projectId'],
        ['PATCH', '/v1/organization', { plan: 'enterprise' }, '/plan'],
        ['PATCH', '/v1/organization', { name: unique('o'), plan: 'free' }, '/plan'],
        ['PATCH', '/v1/organization', { id: outsider.organizationId }, '/id'],
        ['PATCH', '/v1/organization', { createdAt: '2020-01-01T00:00:00.000Z' }, '/createdAt'],
        ['PATCH', `/v1/organization/members/${w.member.userId}`, { role: 'viewer', organizationId: outsider.organizationId }, '/organizationId'],
        ['POST', '/v1/tokens', { name: 'x', role: 'owner' }, '/role'],
        ['POST', '/v1/tokens', { name: 'x', userId: outsider.userId }, '/userId'],
        ['POST', '/v1/tokens', { name: 'x', organizationId: outsider.organizationId }, '/organizationId'],
        ['POST', `/v1/projects/${w.projectId}/monitors`, { ...validMonitor(), state: 'ok' }, '/state'],
        ['POST', `/v1/projects/${w.projectId}/monitors`, { ...validMonitor(), id: newId('mon') }, '/id'],
        ['POST', `/v1/projects/${w.projectId}/monitors`, { ...validMonitor(), projectId: outsiderProjectId }, '/projectId'],
        ['POST', `/v1/projects/${w.projectId}/monitors`, { ...validMonitor(), webhookSecret: 'whsec_chosen-by-the-attacker' }, '/webhookSecret'],
        ['POST', `/v1/projects/${w.projectId}/monitors`, { ...validMonitor(), lastEvaluatedAt: '2020-01-01T00:00:00.000Z' }, '/lastEvaluatedAt'],
        ['PATCH', monitorPath(w), { state: 'ok' }, '/state'],
        ['PATCH', monitorPath(w), { projectId: outsiderProjectId }, '/projectId'],
        ['PATCH', monitorPath(w), { name: 'x', webhookSecret: 'whsec_chosen-by-the-attacker' }, '/webhookSecret'],
        ['PATCH', monitorPath(w), { createdAt: '2020-01-01T00:00:00.000Z' }, '/createdAt'],
      ];
      for (const [method, url, body, pointer] of cases) {
        const res = await ctx.request(method, url, { token: w.owner.token, body });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
        expectValidation(res, { pointers: [pointer] }, [String(body[pointer.slice(1)])]);
      }
      // In a batch, the run carrying a foreign field is rejected on its own.
      const batch = await ctx.request('POST', `/v1/projects/${w.projectId}/runs/batch`, {
        token: w.owner.token,
        body: { runs: [{ ...validRun(), organizationId: outsider.organizationId }, validRun()] },
      });
      expect(batch.statusCode, batch.body).toBe(200);
      const results = batch.json().results as { status: string; problem?: { type: string; errors: { pointer: string }[] } }[];
      expect(results[0]!.status).toBe('rejected');
      expect(results[0]!.problem!.errors.map((e) => e.pointer)).toContain('/runs/0/organizationId');
      expect(results[1]!.status).toBe('created');

      expect((await ctx.request('GET', '/v1/organization', { token: w.owner.token })).json()).toEqual(orgBefore);
      expect((await ctx.request('GET', `/v1/projects/${w.projectId}`, { token: w.owner.token })).json()).toEqual(projectBefore);
      const after = await snapshot(ctx, w);
      expect([after.monitor, after.monitors]).toEqual([monitorsBefore.monitor, monitorsBefore.monitors]);
      expect((await ctx.request('GET', '/v1/me', { token: w.member.token })).json().role).toBe('member');
      const outsiderProjects = (await ctx.request('GET', '/v1/projects?limit=100', { token: outsider.token })).json().items as { id: string }[];
      expect(outsiderProjects.map((p) => p.id)).toEqual([outsiderProjectId]);
    });
  });

  // ───────────────────────────── API4:2023 Unrestricted Resource Consumption ─────────────────────────────
  describe('API4:2023 Unrestricted Resource Consumption', () => {
    it('a body over 10 MB → 413 problem, before it is processed', async () => {
      const w = await buildWorld(ctx);
      const huge = JSON.stringify({ runs: [{ ...validRun(), inputs: { padding: 'x'.repeat(10 * 1024 * 1024) } }] });
      for (const url of [`/v1/projects/${w.projectId}/runs/batch`, `/v1/projects/${w.projectId}/runs`, '/v1/projects']) {
        const res = await ctx.request('POST', url, { token: w.owner.token, payload: huge, headers: { 'content-type': 'application/json' } });
        expectProblem(res, 413, 'payload-too-large');
      }
      const runs = (await ctx.request('GET', `/v1/projects/${w.projectId}/runs?limit=100`, { token: w.owner.token })).json().items;
      expect(runs).toHaveLength(1);
    });

    it('a batch of more than 1000 runs → 400; exactly 1000 is accepted', async () => {
      const w = await buildWorld(ctx);
      const tooMany = await ctx.request('POST', `/v1/projects/${w.projectId}/runs/batch`, {
        token: w.owner.token,
        body: { runs: Array.from({ length: 1001 }, validRun) },
      });
      expectValidation(tooMany, { pointers: ['/runs'] });
      expect((await ctx.request('GET', `/v1/projects/${w.projectId}/runs?limit=100`, { token: w.owner.token })).json().items).toHaveLength(1);
      const max = await ctx.request('POST', `/v1/projects/${w.projectId}/runs/batch`, {
        token: w.owner.token,
        body: { runs: Array.from({ length: 1000 }, validRun) },
      });
      expect(max.statusCode, max.body.slice(0, 300)).toBe(200);
      expect(max.json().results).toHaveLength(1000);
    });

    it('a page size over 100 is clamped to 100', async () => {
      const w = await buildWorld(ctx);
      await ctx.make.runs(w.projectId, 110);
      for (const limit of [101, 1000, 2 ** 31]) {
        const res = await ctx.request('GET', `/v1/projects/${w.projectId}/runs?limit=${limit}`, { token: w.owner.token });
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        expect(res.json().limit).toBe(100);
        expect(res.json().items).toHaveLength(100);
        expect(typeof res.json().nextCursor).toBe('string');
      }
      const projects = await ctx.request('GET', '/v1/projects?limit=100000', { token: w.owner.token });
      expect(projects.statusCode).toBe(200);
      expect(projects.json().limit).toBe(100);
    });
  });

  // ───────────────────────────── API5:2023 Broken Function Level Authorization ─────────────────────────────
  describe('API5:2023 Broken Function Level Authorization', () => {
    for (const r of ADMIN_ROUTES) {
      it(`${r.method} ${r.route}: a member and a viewer get 403 and nothing changes; an admin gets ${r.ok}`, async () => {
        const w = await buildWorld(ctx);
        const viewer = await ctx.make.caller({ role: 'viewer', organizationId: w.owner.organizationId });
        const admin = await ctx.make.caller({ role: 'admin', organizationId: w.owner.organizationId });
        const before = await snapshot(ctx, w);
        for (const caller of [w.member, viewer]) {
          // The member route's target is w.member: a member acting on themselves is still refused.
          const res = await send(ctx, caller, r, w);
          expectProblem(res, 403, 'forbidden');
          expectCleanProblem(res, [w.projectId, w.member.userId, w.invitationId, w.promptId, w.modelId, w.datasetId]);
        }
        expect(await snapshot(ctx, w)).toEqual(before);
        const ok = await send(ctx, admin, r, w);
        expect(ok.statusCode, ok.body).toBe(r.ok);
      });
    }

    it('monitors: a viewer can read but not create, edit, pause or rotate the secret of one (403, nothing changes); a member can', async () => {
      const w = await buildWorld(ctx);
      const viewer = await ctx.make.caller({ role: 'viewer', organizationId: w.owner.organizationId });
      const writes = ID_ROUTES.filter((r) => r.route.includes('/monitors') && r.method !== 'GET' && r.method !== 'DELETE');
      expect(writes.map((r) => `${r.method} ${r.route}`)).toEqual([
        'POST /v1/projects/{project_id}/monitors',
        'PATCH /v1/projects/{project_id}/monitors/{monitor_id}',
        'POST /v1/projects/{project_id}/monitors/{monitor_id}/rotate-secret',
      ]);
      const before = await snapshot(ctx, w);
      for (const r of writes) {
        const res = await send(ctx, viewer, r, w);
        expectProblem(res, 403, 'forbidden');
        expectCleanProblem(res, [w.projectId, w.monitorId]);
      }
      expect(await snapshot(ctx, w)).toEqual(before);
      for (const r of ID_ROUTES.filter((x) => x.route.includes('/monitors') && x.method === 'GET')) {
        expect((await send(ctx, viewer, r, w)).statusCode, r.route).toBe(200);
      }
      for (const r of writes) {
        const res = await send(ctx, w.member, r, w);
        expect(res.statusCode, `${r.route}: ${res.body}`).toBe(r.ok);
      }
    });

    it('datasets: a viewer can read but not create, change, fill or empty one (403, nothing changes); a member can, all but delete it', async () => {
      const w = await buildWorld(ctx);
      const viewer = await ctx.make.caller({ role: 'viewer', organizationId: w.owner.organizationId });
      const writes = [
        ...ID_ROUTES.filter((r) => r.route.includes('dataset') && r.method !== 'GET' && r.route !== '/v1/datasets/{dataset_id}'),
        { method: 'POST', route: '/v1/datasets', path: () => '/v1/datasets', body: () => ({ name: unique('dataset') }), ok: 201 },
        ...ID_ROUTES.filter((r) => r.method === 'PATCH' && r.route === '/v1/datasets/{dataset_id}'),
      ] as const;
      expect(writes.map((r) => `${r.method} ${r.route}`)).toEqual([
        'POST /v1/datasets/{dataset_id}/items',
        'PATCH /v1/datasets/{dataset_id}/items/{item_id}',
        'DELETE /v1/datasets/{dataset_id}/items/{item_id}',
        'POST /v1/projects/{project_id}/runs/{run_id}/dataset-items',
        'POST /v1/datasets',
        'PATCH /v1/datasets/{dataset_id}',
      ]);
      const before = await snapshot(ctx, w);
      const datasets = async () => (await ctx.request('GET', '/v1/datasets?limit=100', { token: w.owner.token })).json().items;
      const listed = await datasets();
      for (const r of writes) {
        const res = await send(ctx, viewer, r, w);
        expectProblem(res, 403, 'forbidden', 'Your role (viewer) does not allow scores:write.');
        expectCleanProblem(res, [w.projectId, w.datasetId, w.itemId]);
      }
      expect(await snapshot(ctx, w)).toEqual(before);
      expect(await datasets()).toEqual(listed);
      for (const r of ID_ROUTES.filter((x) => x.route.includes('/datasets') && x.method === 'GET')) {
        expect((await send(ctx, viewer, r, w)).statusCode, r.route).toBe(200);
      }
      for (const r of writes) {
        const res = await send(ctx, w.member, r, w);
        expect(res.statusCode, `${r.route}: ${res.body}`).toBe(r.ok);
      }
    });

    it('no privilege escalation: a member cannot promote themselves, an admin cannot grant owner, a non-admin cannot revoke a colleague’s token', async () => {
      const w = await buildWorld(ctx);
      const admin = await ctx.make.caller({ role: 'admin', organizationId: w.owner.organizationId });
      expectProblem(
        await ctx.request('PATCH', `/v1/organization/members/${w.member.userId}`, { token: w.member.token, body: { role: 'admin' } }),
        403,
        'forbidden',
      );
      expectProblem(await ctx.request('PATCH', `/v1/organization/members/${admin.userId}`, { token: admin.token, body: { role: 'owner' } }), 403, 'forbidden');
      expectProblem(
        await ctx.request('PATCH', `/v1/organization/members/${w.owner.userId}`, { token: admin.token, body: { role: 'viewer' } }),
        403,
        'forbidden',
      );
      expectProblem(
        await ctx.request('POST', '/v1/organization/invitations', { token: admin.token, body: { email: `${unique('inv')}@example.test`, role: 'owner' } }),
        403,
        'forbidden',
      );
      // Not admin: only their own tokens exist for them.
      expectProblem(await ctx.request('DELETE', `/v1/tokens/${w.owner.tokenId}`, { token: w.member.token }), 404, 'not-found');
      expectProblem(await ctx.request('POST', `/v1/tokens/${w.owner.tokenId}/rotate`, { token: admin.token }), 404, 'not-found');
      expect((await ctx.request('GET', '/v1/me', { token: w.owner.token })).statusCode).toBe(200);
      expect((await ctx.request('GET', '/v1/me', { token: w.member.token })).json().role).toBe('member');
      expect((await ctx.request('GET', '/v1/me', { token: admin.token })).json().role).toBe('admin');
    });

    it('a downgrade (admin → viewer by an owner through the members API) applies to the existing token on its next request', async () => {
      const w = await buildWorld(ctx);
      const admin = await ctx.make.caller({ role: 'admin', organizationId: w.owner.organizationId });
      expect((await ctx.request('GET', '/v1/organization/tokens', { token: admin.token })).statusCode).toBe(200);
      const changed = await ctx.request('PATCH', `/v1/organization/members/${admin.userId}`, { token: w.owner.token, body: { role: 'viewer' } });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().role).toBe('viewer');

      expectProblem(await ctx.request('GET', '/v1/organization/tokens', { token: admin.token }), 403, 'forbidden');
      expectProblem(await ctx.request('DELETE', `/v1/projects/${w.projectId}`, { token: admin.token }), 403, 'forbidden');
      expectProblem(await ctx.request('POST', '/v1/projects', { token: admin.token, body: { name: unique('p') } }), 403, 'forbidden');
      expect((await ctx.request('GET', '/v1/me', { token: admin.token })).json().role).toBe('viewer');
      expect((await ctx.request('GET', `/v1/projects/${w.projectId}`, { token: admin.token })).statusCode).toBe(200);
    });
  });

  // ───────────────────────────── API7:2023 Server Side Request Forgery ─────────────────────────────
  describe('API7:2023 Server Side Request Forgery', () => {
    const REFUSED_TARGETS = [
      'http://127.0.0.1/hook',
      'http://127.1/hook',
      'http://2130706433/hook', // 127.0.0.1 as one number
      'http://0x7f000001/hook',
      'http://localhost:8080/hook',
      'http://api.localhost/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://169.254.169.254/latest/meta-data/', // cloud metadata
      'http://10.0.0.1/hook',
      'http://172.16.5.4/hook',
      'http://192.168.1.1/hook',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://0.0.0.0/hook',
      'http://intranet/hook', // a single-label name resolves on the local network
      'file:///etc/passwd',
      'gopher://example.com/',
      'ftp://example.com/',
      'https://user:pass@example.com/hook',
      'not a url',
    ];

    it('a monitor webhook URL on a private, loopback, link-local or metadata address, or not http(s), is refused (400 naming it) on create and on edit; nothing is stored', async () => {
      const w = await buildWorld(ctx);
      const before = await snapshot(ctx, w);
      for (const url of REFUSED_TARGETS) {
        const created = await ctx.request('POST', `/v1/projects/${w.projectId}/monitors`, {
          token: w.owner.token,
          body: { ...validMonitor(), webhookUrls: ['https://hooks.example.com/ok', url] },
        });
        expectValidation(created, { pointers: ['/webhookUrls/1'] }, [url]);
        const patched = await ctx.request('PATCH', monitorPath(w), { token: w.owner.token, body: { webhookUrls: [url] } });
        expectValidation(patched, { pointers: ['/webhookUrls/0'] }, [url]);
      }
      expect(await snapshot(ctx, w)).toEqual(before);
      // Control: a public https URL is accepted.
      const ok = await ctx.request('PATCH', monitorPath(w), { token: w.owner.token, body: { webhookUrls: ['https://hooks.example.com/sightline'] } });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().webhookUrls).toEqual(['https://hooks.example.com/sightline']);
    });
  });

  // ───────────────────────────── API9:2023 Improper Inventory Management ─────────────────────────────
  describe('API9:2023 Improper Inventory Management', () => {
    it('only /v1 exists: other versions, unversioned and near-miss paths → 404 problem, even with a valid token', async () => {
      const caller = await ctx.make.caller();
      for (const path of [
        '/v0/me',
        '/v2/me',
        '/me',
        '/api/v1/me',
        '/v1/me/',
        '/V1/me',
        '/v1/ME',
        '/v1.0/me',
        '/v1beta/me',
        '/internal/me',
        '/v1/me.json',
        '/api/public/me',
        '/api/public/v1/me',
      ]) {
        const res = await ctx.request('GET', path, { token: caller.token });
        expectProblem(res, 404, 'not-found');
        expectCleanProblem(res, [path]);
      }
      expect((await ctx.request('GET', '/v1/me', { token: caller.token })).statusCode).toBe(200);
    });

    it("the published inventory (OpenAPI) lists /v1 routes, Langfuse's compatible paths and the documented operational ones, nothing else", async () => {
      const doc = (await ctx.request('GET', '/openapi.json')).json() as { paths: Record<string, unknown> };
      const operational = new Set(['/healthz', '/readyz', '/.well-known/jwks.json']);
      const langfuse = new Set(['/api/public/otel/v1/traces', '/api/public/ingestion']);
      const paths = Object.keys(doc.paths);
      expect(paths.length).toBeGreaterThan(10);
      for (const path of paths) expect(path.startsWith('/v1/') || operational.has(path) || langfuse.has(path), path).toBe(true);
      for (const path of langfuse) expect(paths, path).toContain(path);
    });
  });
});
