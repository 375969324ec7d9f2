import { Problem } from '../../lib/problems.js';

/* What an Export call's metadata (its HTTP/2 headers) says: the encodings taken, what is forwarded, its deadline. */

export const ACCEPT_ENCODING = 'identity,deflate,gzip';
/** Metadata forwarded as the request headers of the same name; nothing else of the call is. */
export const FORWARDED = ['authorization', 'sightline-project', 'user-agent'] as const;
const TIMEOUT_UNITS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

export const metadataValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** `grpc-timeout` in milliseconds (null: none); a malformed one is refused. */
export function clientTimeoutMs(value: string | undefined): number | null {
  if (value === undefined) return null;
  const match = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (!match)
    throw new Problem('validation', {
      detail: `The grpc-timeout ${JSON.stringify(value.slice(0, 20))} is malformed (gRPC over HTTP2: 1 to 8 digits and a unit).`,
    });
  return Math.max(1, Math.ceil(Number(match[1]) * TIMEOUT_UNITS[match[2]!]!));
}
