import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { describePrompts } from './prompts.test-support.js';

/** Prompts polled with ETags: 304 while nothing changed, a new ETag after any change. */
describePrompts('ETag and If-None-Match', (ctx, h, s) => {
  async function etagOf(url: string): Promise<{ etag: string; body: Json }> {
    const res = await h.get(s.owner, url);
    const body = ok(res);
    const etag = res.headers.etag;
    expect(typeof etag, `${url} has an ETag`).toBe('string');
    expect(etag as string).toMatch(/^"[^"]+"$/);
    return { etag: etag as string, body };
  }

  async function expect304(url: string, ifNoneMatch: string, etag = ifNoneMatch) {
    const res = await h.get(s.owner, url, { 'if-none-match': ifNoneMatch });
    expect(res.statusCode, res.body).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe(etag);
  }

  it('GET prompt: stable ETag, 304 on a match, 200 with a new ETag after a new version, a label move and a description change', async () => {
    const p = await h.prompt(s.owner);
    const url = `/v1/prompts/${p.id}`;
    const first = await etagOf(url);
    expect((await etagOf(url)).etag).toBe(first.etag);
    expect((await etagOf(`/v1/prompts/${p.name}`)).etag).toBe(first.etag);
    await expect304(url, first.etag);
    await expect304(url, `"nope", ${first.etag}`, first.etag);
    await expect304(url, `W/${first.etag}`, first.etag);
    expect(ok(await h.get(s.owner, url, { 'if-none-match': '"something-else"' }))).toEqual(first.body);

    const seen = [first.etag];
    const changes: Array<() => Promise<unknown>> = [
      () => h.addVersion(s.owner, p.id, { template: 'v2' }),
      () => h.putLabel(s.owner, p.id, 'production', 2),
      () => h.putLabel(s.owner, p.id, 'production', 1),
      () => ctx.request('PATCH', url, { token: s.owner.token, body: { description: 'changed' } }),
      () => h.delLabel(s.owner, p.id, 'production'),
    ];
    for (const change of changes) {
      await new Promise((r) => setTimeout(r, 2));
      const res = (await change()) as LightMyRequestResponse;
      expect(res.statusCode, res.body).toBeLessThan(300);
      const stale = await h.get(s.owner, url, { 'if-none-match': seen[seen.length - 1]! });
      expect(stale.statusCode, stale.body).toBe(200);
      const fresh = stale.headers.etag as string;
      expect(seen).not.toContain(fresh);
      expect(stale.json()).toEqual(ok(await h.get(s.owner, url)));
      seen.push(fresh);
      await expect304(url, fresh);
    }
  });

  it('GET version: ETag and 304; by label, a label move makes the old ETag stale', async () => {
    const p = await h.prompt(s.owner, { template: 'one' });
    ok(await h.addVersion(s.owner, p.id, { template: 'two' }), 201);
    const v1 = await etagOf(`/v1/prompts/${p.id}/versions/1`);
    const v2 = await etagOf(`/v1/prompts/${p.id}/versions/2`);
    expect(v1.etag).not.toBe(v2.etag);
    await expect304(`/v1/prompts/${p.id}/versions/1`, v1.etag);
    // A version never changes, so its ETag survives later versions.
    ok(await h.addVersion(s.owner, p.id, { template: 'three' }), 201);
    await expect304(`/v1/prompts/${p.id}/versions/1`, v1.etag);

    ok(await h.putLabel(s.owner, p.id, 'production', 1));
    const byLabel = await etagOf(`/v1/prompts/${p.id}/versions/production`);
    expect(byLabel.body.version).toBe(1);
    await expect304(`/v1/prompts/${p.id}/versions/production`, byLabel.etag);
    ok(await h.putLabel(s.owner, p.id, 'production', 2));
    const moved = await h.get(s.owner, `/v1/prompts/${p.id}/versions/production`, { 'if-none-match': byLabel.etag });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().version).toBe(2);
    expect(moved.headers.etag).toBe(v2.etag);
  });

  it('If-None-Match never hides a refusal: 404 for a missing prompt, 404 for another organization', async () => {
    const p = await h.prompt(s.owner);
    const { etag } = await etagOf(`/v1/prompts/${p.id}`);
    const outsider = await ctx.make.caller({ role: 'owner' });
    expectProblem(await ctx.request('GET', `/v1/prompts/${p.id}`, { token: outsider.token, headers: { 'if-none-match': etag } }), 404, 'not-found');
    expectProblem(await ctx.request('GET', `/v1/prompts/${p.id}`, { token: outsider.token, headers: { 'if-none-match': '*' } }), 404, 'not-found');
  });
});
