import { randomBytes } from 'node:crypto';

/** How long a claimed monitor or delivery stays with its claimer; a crashed instance's claims expire after it. */
export const LEASE_MS = 60_000;
/** Rows claimed at a time; a pass claims again until it gets fewer. */
export const CLAIM_BATCH = 25;

/** Lease tokens of one instance: the instance part says who holds a row, the random part which pass. */
export function leaseTokens(): () => string {
  const instance = randomBytes(6).toString('hex');
  return () => `${instance}:${randomBytes(6).toString('hex')}`;
}
