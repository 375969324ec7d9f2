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

/**
 * An id derived from parts (SHA-256 of them, the first 160 bits in base32 after `prefix_`): the same parts
 * give the same id on any machine, so work redone after a crash reuses the ids it had (never a duplicate).
 */
export async function derivedId(prefix: string, ...parts: string[]): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(parts.join('\u0000'))));
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest.subarray(0, 20)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]!;
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return `${prefix}_${out}`;
}
