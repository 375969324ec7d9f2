/**
 * The counts property (docs/design/quality-loop.md: Annotation queues): after any sequence of adds,
 * claims, completions, skips and clock moves, a queue's counts are exactly a model's — every item once:
 * pending (nobody holds it), in progress (held under an unexpired lease), completed, skipped — and each
 * claim gives the item the model says. Every engine; a manual clock moved by the steps, never a sleep.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect, manualClock, type Caller } from '../../../test/helpers/harness.js';
import { ok, type Json } from '../../../test/helpers/json.js';
import { ANNOTATION_LEASE_MS } from './annotations.rules.js';
import { queuesWorld, type QueuesWorld } from './annotations.test-support.js';

const clock = manualClock(Date.parse('2026-11-26T09:00:00.000Z'));
const TARGETS = 6;
const REVIEWERS = 3;

type Step = { op: 'add'; ids: number[] } | { op: 'claim' | 'complete' | 'skip'; reviewer: number } | { op: 'wait'; ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), ids: fc.uniqueArray(fc.nat({ max: TARGETS - 1 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ op: fc.constantFrom('claim' as const, 'complete' as const, 'skip' as const), reviewer: fc.nat({ max: REVIEWERS - 1 }) }),
  fc.record({ op: fc.constant('wait' as const), ms: fc.constantFrom(1, 60_000, ANNOTATION_LEASE_MS - 1, ANNOTATION_LEASE_MS) }),
);

interface ModelItem {
  target: string;
  status: 'pending' | 'completed' | 'skipped';
  reviewer: number | null;
  leaseUntil: number | null;
}

/** What the service should do, in memory: items in the order added, leases by the clock. */
class Model {
  items: ModelItem[] = [];
  held = (item: ModelItem, now: number) => item.status === 'pending' && item.leaseUntil !== null && item.leaseUntil > now;
  add(ids: string[]) {
    for (const target of ids)
      if (!this.items.some((i) => i.target === target)) this.items.push({ target, status: 'pending', reviewer: null, leaseUntil: null });
  }
  claim(reviewer: number, now: number): ModelItem | null {
    const item = this.items.find((i) => this.held(i, now) && i.reviewer === reviewer) ?? this.items.find((i) => i.status === 'pending' && !this.held(i, now));
    if (!item) return null;
    item.reviewer = reviewer;
    item.leaseUntil = now + ANNOTATION_LEASE_MS;
    return item;
  }
  /** The item the reviewer holds, done with (or null: the service answers 409). */
  finish(reviewer: number, status: 'completed' | 'skipped', now: number, target: string | undefined): ModelItem | null {
    const item = this.items.find((i) => i.target === target);
    if (!item || !this.held(item, now) || item.reviewer !== reviewer) return null;
    item.status = status;
    item.leaseUntil = null;
    return item;
  }
  counts(now: number) {
    return {
      pending: this.items.filter((i) => i.status === 'pending' && !this.held(i, now)).length,
      inProgress: this.items.filter((i) => this.held(i, now)).length,
      completed: this.items.filter((i) => i.status === 'completed').length,
      skipped: this.items.filter((i) => i.status === 'skipped').length,
    };
  }
}

async function replay(world: QueuesWorld, reviewers: Caller[], steps: Step[]) {
  const { call, queue, add, claim, counts } = world;
  const q = await queue();
  const model = new Model();
  /** The last item each reviewer was given (what they complete or skip next). */
  const last: (Json | undefined)[] = [];
  for (const step of steps) {
    const now = clock.now();
    if (step.op === 'wait') clock.advance(step.ms);
    else if (step.op === 'add') {
      const ids = step.ids.map((i) => `r${i}`);
      const before = model.items.length;
      model.add(ids);
      expect(await add(q.id, { ids })).toEqual({
        added: model.items.length - before,
        existing: ids.length - (model.items.length - before),
        examined: ids.length,
      });
    } else if (step.op === 'claim') {
      const expected = model.claim(step.reviewer, now);
      const res = await claim(q.id, reviewers[step.reviewer]!);
      if (expected === null) expect(res.statusCode, res.body).toBe(204);
      else {
        last[step.reviewer] = ok(res);
        expect(last[step.reviewer]).toMatchObject({ targetId: expected.target, reviewerId: reviewers[step.reviewer]!.userId });
      }
    } else {
      const status = step.op === 'complete' ? 'completed' : 'skipped';
      const item = last[step.reviewer];
      const expected = model.finish(step.reviewer, status, now, item?.targetId);
      if (!item) continue;
      const body = step.op === 'complete' ? { scores: [{ name: 'ok', value: true }] } : undefined;
      const res = await call(reviewers[step.reviewer]!, 'POST', `/${q.id}/items/${item.id}/${step.op}`, body);
      expect(res.statusCode, res.body).toBe(expected === null ? 409 : 200);
    }
    expect(await counts(q.id)).toEqual(model.counts(clock.now()));
  }
}

describeEachDialect(
  'annotation counts (property)',
  (ctx) => {
    it('match a model after any sequence of adds, claims, completions, skips and lease expiries', async () => {
      const world = await queuesWorld(ctx, TARGETS);
      const reviewers = [world.member, world.other, world.admin];
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 25 }), (steps) => replay(world, reviewers, steps)),
        { numRuns: 25 },
      );
    }, 120_000);
  },
  { clock },
);
