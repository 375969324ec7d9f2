import { createHash } from 'node:crypto';

/** What a queue's items are. */
export const QUEUE_TARGETS = ['run', 'trace'] as const;
export type QueueTarget = (typeof QUEUE_TARGETS)[number];

/** Where an item stands; `pending` under an unexpired lease is counted as in progress. */
export const ITEM_STATUSES = ['pending', 'completed', 'skipped'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** How long a claimed item stays with its reviewer; claiming again renews it. */
export const ANNOTATION_LEASE_MS = 10 * 60_000;
/** The most targets one add request puts in a queue (by ids, or taken from a filter). */
export const MAX_ADD = 1000;
/** The most matching runs or traces a sampling add looks at, newest first. */
export const MAX_SAMPLED_SCAN = 20_000;
/** The most scores one completion gives. */
export const MAX_SCORES_PER_ITEM = 50;
/** The score configs a queue may name. */
export const MAX_QUEUE_CONFIGS = 50;

/** Whether a reviewer holds an item at `now`: it is pending and its lease, theirs, has not run out. */
export function holds(item: { status: string; reviewer_id: string | null; lease_until: number | null }, reviewerId: string, now: number): boolean {
  return item.status === 'pending' && item.reviewer_id === reviewerId && item.lease_until !== null && Number(item.lease_until) > now;
}

/**
 * Whether a sampling add at `rate` takes a target: a hash of (queue, target) read as a fraction of 1,
 * below the rate. The same queue takes the same targets at the same rate, whoever asks and whenever;
 * another queue takes another sample.
 */
export function sampled(queueId: string, targetId: string, rate: number): boolean {
  const digest = createHash('sha256').update(queueId).update('\u0000').update(targetId).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48 < rate;
}
