/**
 * Attribute keys, which repeat from span to span (`gen_ai.usage.input_tokens`…), read through a small cache
 * of the strings last made of the same bytes: no native call to decode them, and the same string each time,
 * whose hash V8 keeps, for the dictionaries of attributes they go into. A slot is chosen by a hash of the
 * bytes and taken only when its bytes are the same, so the answer is always `bytes.toString('utf8', start,
 * end)`; bounded: KEY_SLOTS keys of at most KEY_BYTES bytes, whatever clients send.
 */
const KEY_SLOTS = 1024;
const KEY_BYTES = 64;
const keyBytes: (Uint8Array | null)[] = new Array<Uint8Array | null>(KEY_SLOTS).fill(null);
const keyStrings: string[] = new Array<string>(KEY_SLOTS).fill('');

/** The text of `bytes[start, end)` (UTF-8), from the cache when the same bytes were read last in its slot. */
export function keyOf(bytes: Buffer, start: number, end: number): string {
  const length = end - start;
  if (length > KEY_BYTES) return bytes.toString('utf8', start, end);
  // FNV-1a over the bytes, folded to a slot.
  let hash = 0x811c9dc5 ^ length;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  const slot = (hash ^ (hash >>> 15)) & (KEY_SLOTS - 1);
  const cached = keyBytes[slot];
  if (cached != null && cached.length === length) {
    let same = true;
    for (let i = 0; i < length && same; i++) same = cached[i] === bytes[start + i];
    if (same) return keyStrings[slot]!;
  }
  const key = bytes.toString('utf8', start, end);
  const copy = new Uint8Array(length);
  copy.set(bytes.subarray(start, end));
  keyBytes[slot] = copy;
  keyStrings[slot] = key;
  return key;
}
