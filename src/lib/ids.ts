import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

export type IdPrefix = 'org' | 'usr' | 'prj' | 'run' | 'prm' | 'mon' | 'tok' | 'key' | 'inv';

/**
 * A ULID-style id: 48 bits of milliseconds then 80 random bits, base32, behind a type prefix.
 * Time-ordered, so ids created later sort later (bytewise) within the same millisecond's precision.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let random = '';
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      random += ALPHABET[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return `${prefix}_${time}${random}`;
}
