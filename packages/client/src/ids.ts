const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

/**
 * A client-generated run id: `run_` and a ULID (48-bit millisecond time, 80 random bits), so ids sort
 * by creation like the server's. Sending runs with ids of their own makes creating them idempotent:
 * a retried request answers "existing" instead of creating a duplicate.
 */
export function newRunId(now: number = Date.now()): string {
  return newClientId('run', now);
}

/** A client-generated score id (`scr_` and a ULID), for the same reason. */
export function newScoreId(now: number = Date.now()): string {
  return newClientId('scr', now);
}

function newClientId(prefix: string, now: number): string {
  let time = '';
  let t = Math.max(0, Math.floor(now));
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += ALPHABET[bytes[i]! % 32]!;
  return `${prefix}_${time}${random}`;
}
