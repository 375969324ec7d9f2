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

export type IdPrefix =
  | 'org'
  | 'usr'
  | 'prj'
  | 'run'
  | 'prm'
  | 'mon'
  | 'tok'
  | 'key'
  | 'inv'
  | 'aud'
  | 'ple'
  | 'mev'
  | 'whd'
  | 'wha'
  | 'ses'
  | 'mdl'
  | 'vew'
  | 'scr'
  | 'scc'
  | 'ds'
  | 'dsi'
  | 'aq'
  | 'aqi'
  | 'evr'
  | 'mcn'
  | 'exp';

let lastTime = -1;
let lastRandom = '';

/** The base32 string plus one (it never overflows in practice: 80 random bits). */
function increment(value: string): string {
  const chars = value.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const digit = ALPHABET.indexOf(chars[i]!);
    if (digit < 31) {
      chars[i] = ALPHABET[digit + 1]!;
      return chars.join('');
    }
    chars[i] = ALPHABET[0]!;
  }
  return chars.join('');
}

function freshRandom(): string {
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
  return random;
}

/**
 * A ULID-style id: 48 bits of milliseconds then 80 random bits, base32, behind a type prefix.
 * Time-ordered, and monotonic within a millisecond in one process (the random part is incremented, as
 * ULID's monotonic mode does), so of two ids made one after the other the later sorts later: lists
 * ordered by (time, id) keep the order in which things happened.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  lastRandom = now === lastTime ? increment(lastRandom) : freshRandom();
  lastTime = now;
  return `${prefix}_${time}${lastRandom}`;
}
