import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem, manualClock, type Caller } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { ANNOTATION_LEASE_MS } from './annotations.rules.js';
import { queuesWorld } from './annotations.test-support.js';

const clock = manualClock(Date.parse('2026-11-26T09:00:00.000Z'));
const iso = (ms: number) => new Date(ms).toISOString();

/** Reviewing: claim (leases, renewal, expiry), complete with scores, skip; concurrent reviewers never share an item. */
describeEachDialect(
  'annotation claims',
  (ctx) => {
    it('gives the oldest pending item to a reviewer, the same one again until done, the next to another reviewer, and 204 when none is free', async () => {
      const { member, other, call, queue, add, claim, counts } = await queuesWorld(ctx);
      const q = await queue();
      await add(q.id, { ids: ['r1', 'r0'] });
      const first = ok(await claim(q.id, member));
      expect(first).toMatchObject({ targetId: 'r1', status: 'pending', reviewerId: member.userId, leaseUntil: iso(clock.now() + ANNOTATION_LEASE_MS) });
      clock.advance(60_000);
      const again = ok(await claim(q.id, member));
      expect(again).toMatchObject({ id: first.id, leaseUntil: iso(clock.now() + ANNOTATION_LEASE_MS) });
      const second = ok(await claim(q.id, other));
      expect(second).toMatchObject({ targetId: 'r0', reviewerId: other.userId });
      expect(await counts(q.id)).toEqual({ pending: 0, inProgress: 2, completed: 0, skipped: 0 });
      const none = await call((await queuesWorld(ctx)).member, 'POST', `/${q.id}/claim`);
      expect(none.statusCode).toBe(404);
      const third = await ctx.make.caller({ role: 'member', organizationId: member.organizationId });
      const empty = await claim(q.id, third);
      expect(empty.statusCode, empty.body).toBe(204);
      expect(empty.body).toBe('');
    });

    it('completes a held item with its scores (source annotation, the queue’s id) and skips another; only the holder may', async () => {
      const { member, other, project, call, queue, add, claim, counts, config } = await queuesWorld(ctx);
      const helpful = await config({ name: `helpfulness-${Date.now()}`, dataType: 'numeric', min: 0, max: 1 });
      const q = await queue({ scoreConfigIds: [helpful.id] });
      await add(q.id, { ids: ['r0', 'r1'] });
      const item = ok(await claim(q.id, member));
      const path = `/${q.id}/items/${item.id}`;
      const notYours = `Annotation item ${item.id} is not claimed by you; claim it first.`;
      expectProblem(await call(other, 'POST', `${path}/complete`, { scores: [{ name: 'x', value: 1 }] }), 409, 'conflict', notYours);
      expectProblem(await call(other, 'POST', `${path}/skip`), 409, 'conflict', notYours);

      // A refused score stores nothing and leaves the item held.
      const refused = expectProblem(
        await call(member, 'POST', `${path}/complete`, {
          scores: [
            { name: 'thumbs', value: true },
            { configId: helpful.id, value: 2 },
          ],
        }),
        400,
        'validation',
      );
      expect(refused.errors).toEqual([{ pointer: '/scores/1/value', detail: `The score config "${helpful.name}" takes values up to 1; 2 is more.` }]);
      expect(await counts(q.id)).toEqual({ pending: 1, inProgress: 1, completed: 0, skipped: 0 });

      const done = ok(
        await call(member, 'POST', `${path}/complete`, {
          scores: [
            { configId: helpful.id, value: 0.75, comment: 'clear' },
            { name: 'thumbs', value: true },
          ],
        }),
      );
      expect(done.item).toMatchObject({ id: item.id, status: 'completed', completedBy: member.userId, completedAt: iso(clock.now()), leaseUntil: null });
      expect(done.scores).toHaveLength(2);
      expect(done.scores[0]).toMatchObject({
        target: 'run',
        runId: 'r0',
        name: helpful.name,
        value: 0.75,
        comment: 'clear',
        source: 'annotation',
        queueId: q.id,
        configId: helpful.id,
        author: { kind: 'user', id: member.userId },
      });
      const stored = ok(await ctx.request('GET', `/v1/projects/${project.id}/scores?queueId=${q.id}`, { token: member.token }));
      expect(stored.items.map((s: Json) => s.id).sort()).toEqual(done.scores.map((s: Json) => s.id).sort());
      expectProblem(
        await call(member, 'POST', `${path}/complete`, { scores: [{ name: 'x', value: 1 }] }),
        409,
        'conflict',
        `Annotation item ${item.id} is completed already.`,
      );

      const next = ok(await claim(q.id, member));
      expect(next.targetId).toBe('r1');
      expect(ok(await call(member, 'POST', `/${q.id}/items/${next.id}/skip`))).toMatchObject({ status: 'skipped', completedBy: member.userId });
      expectProblem(await call(member, 'POST', `/${q.id}/items/${next.id}/skip`), 409, 'conflict', `Annotation item ${next.id} is skipped already.`);
      expect(await counts(q.id)).toEqual({ pending: 0, inProgress: 0, completed: 1, skipped: 1 });
      expect((await claim(q.id, member)).statusCode).toBe(204);
      expectProblem(await call(member, 'POST', `/${q.id}/items/aqi_missing/skip`), 404, 'not-found', 'Annotation item aqi_missing does not exist.');
      expectProblem(await call(member, 'POST', `${path}/complete`, { scores: [] }), 400, 'validation');
      expectProblem(await call(member, 'POST', `${path}/complete`, { scores: [{ value: 1, source: 'api' }] }), 400, 'validation');
    });

    it('scores a trace queue’s items as traces', async () => {
      const { member, call, queue, add, claim } = await queuesWorld(ctx);
      const q = await queue({ target: 'trace' });
      await add(q.id, { ids: ['r2'] });
      const item = ok(await claim(q.id, member));
      expect(item).toMatchObject({ target: 'trace', targetId: 'r2' });
      const done = ok(await call(member, 'POST', `/${q.id}/items/${item.id}/complete`, { scores: [{ name: 'tone', value: 'friendly' }] }));
      expect(done.scores[0]).toMatchObject({ target: 'trace', traceId: 'r2', runId: null, source: 'annotation', queueId: q.id });
    });

    it('lets a lease run out: the item goes to the next reviewer, and the first may no longer complete it', async () => {
      const { member, other, call, queue, add, claim, counts } = await queuesWorld(ctx);
      const q = await queue();
      await add(q.id, { ids: ['r0'] });
      const item = ok(await claim(q.id, member));
      clock.advance(ANNOTATION_LEASE_MS - 1);
      expect((await claim(q.id, other)).statusCode).toBe(204);
      expect(await counts(q.id)).toEqual({ pending: 0, inProgress: 1, completed: 0, skipped: 0 });
      clock.advance(1);
      expect(await counts(q.id)).toEqual({ pending: 1, inProgress: 0, completed: 0, skipped: 0 });
      expectProblem(
        await call(member, 'POST', `/${q.id}/items/${item.id}/complete`, { scores: [{ name: 'x', value: 1 }] }),
        409,
        'conflict',
        `Your lease on annotation item ${item.id} has expired; claim an item again.`,
      );
      const taken = ok(await claim(q.id, other));
      expect(taken).toMatchObject({ id: item.id, reviewerId: other.userId });
      expectProblem(
        await call(member, 'POST', `/${q.id}/items/${item.id}/skip`),
        409,
        'conflict',
        `Annotation item ${item.id} is not claimed by you; claim it first.`,
      );
      ok(await call(other, 'POST', `/${q.id}/items/${item.id}/skip`));
    });

    it('never gives one item to two reviewers: 20 concurrent claims over 10 items', async () => {
      const { member, project, queue, add, claim } = await queuesWorld(ctx, 10);
      const q = await queue();
      await add(q.id, { ids: Array.from({ length: 10 }, (_, i) => `r${i}`) });
      const reviewers: Caller[] = await Promise.all(
        Array.from({ length: 20 }, () => ctx.make.caller({ role: 'member', organizationId: member.organizationId })),
      );
      const answers = await Promise.all(reviewers.map((r) => claim(q.id, r)));
      const given = answers.filter((a) => a.statusCode === 200).map((a) => a.json() as Json);
      expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.statusCode)).toEqual(Array(10).fill(204));
      expect(new Set(given.map((i) => i.id)).size).toBe(10);
      expect(new Set(given.map((i) => i.reviewerId)).size).toBe(10);
      for (const item of given) expect(reviewers.some((r) => r.userId === item.reviewerId)).toBe(true);
      expect(ok(await ctx.request('GET', `/v1/projects/${project.id}/annotation-queues/${q.id}`, { token: member.token })).counts).toEqual({
        pending: 0,
        inProgress: 10,
        completed: 0,
        skipped: 0,
      });
    });

    it('two reviewers working through a queue in parallel complete every item once between them', async () => {
      const { member, other, call, queue, add, claim, counts } = await queuesWorld(ctx, 30);
      const q = await queue();
      await add(q.id, { filter: {} });
      const work = async (reviewer: Caller) => {
        const done: string[] = [];
        for (;;) {
          const res = await claim(q.id, reviewer);
          if (res.statusCode === 204) return done;
          const item = ok(res);
          ok(await call(reviewer, 'POST', `/${q.id}/items/${item.id}/complete`, { scores: [{ name: 'ok', value: true }] }));
          done.push(item.targetId);
        }
      };
      const [a, b] = await Promise.all([work(member), work(other)]);
      expect([...a, ...b].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `r${i}`).sort());
      expect(await counts(q.id)).toEqual({ pending: 0, inProgress: 0, completed: 30, skipped: 0 });
    });
  },
  { clock },
);
