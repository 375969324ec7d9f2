import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

// Random bytes drawn in blocks: one call per id costs more than the rest of the id put together.
let pool = Buffer.alloc(0);
let offset = 0;
function randomPart(): Buffer {
  if (offset + 10 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += 10;
  return pool.subarray(offset - 10, offset);
}

export type IdPrefix = 'org' | 'usr' | 'prj' | 'run' | 'prm' | 'mon' | 'tok' | 'key' | 'inv' | 'ple' | 'mev' | 'whd' | 'wha';

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
  const bytes = randomPart();
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
