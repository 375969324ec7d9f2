// What the prompts suites (prompts*.test.ts) share: unique names, the record shapes, the calls bound to a context.
import { beforeAll, describe } from 'vitest';
import { describeEachDialect, type Caller, type TestContext } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';

let seq = 0;
export const uname = (prefix = 'prompt') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export const PROMPT_KEYS = ['createdAt', 'description', 'id', 'labels', 'latestVersion', 'name', 'updatedAt'];
export const VERSION_KEYS = ['config', 'createdAt', 'createdBy', 'message', 'promptId', 'template', 'variables', 'version'];
export const EVENT_KEYS = ['actor', 'createdAt', 'fromVersion', 'id', 'label', 'toVersion'];
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function helpers(ctx: TestContext) {
  const create = (caller: Caller, body: Json) => ctx.request('POST', '/v1/prompts', { token: caller.token, body });
  async function prompt(caller: Caller, body: Json = {}): Promise<Json> {
    return ok(await create(caller, { name: uname(), template: 'Hello {{name}}', ...body }), 201);
  }
  const get = (caller: Caller, url: string, headers?: Record<string, string>) =>
    ctx.request('GET', url, { token: caller.token, ...(headers ? { headers } : {}) });
  const addVersion = (caller: Caller, ref: string, body: Json) => ctx.request('POST', `/v1/prompts/${ref}/versions`, { token: caller.token, body });
  const putLabel = (caller: Caller, ref: string, label: string, version: number) =>
    ctx.request('PUT', `/v1/prompts/${ref}/labels/${label}`, { token: caller.token, body: { version } });
  const delLabel = (caller: Caller, ref: string, label: string) => ctx.request('DELETE', `/v1/prompts/${ref}/labels/${label}`, { token: caller.token });
  const render = (caller: Caller, ref: string, body: Json) => ctx.request('POST', `/v1/prompts/${ref}/render`, { token: caller.token, body });
  async function all(caller: Caller, url: string, limit = 100): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const page: Json = ok(await get(caller, `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      items.push(...page.items);
      cursor = page.nextCursor;
      if (!cursor) return items;
    }
    throw new Error('list did not end');
  }
  return { create, prompt, get, addVersion, putLabel, delLabel, render, all };
}

export type PromptHelpers = ReturnType<typeof helpers>;

/** What the tests of a prompts suite share, filled in before they run: an owner of a new organization. */
export interface Owned {
  owner: Caller;
}

/** The prompts suite of one part (create, versions, …) on each engine. */
export function describePrompts(part: string, body: (ctx: TestContext, h: PromptHelpers, s: Owned) => void): void {
  describeEachDialect('prompts', (ctx) => {
    const s = {} as Owned;
    beforeAll(async () => {
      s.owner = await ctx.make.caller({ role: 'owner' });
    });
    describe(part, () => body(ctx, helpers(ctx), s));
  });
}
