import { hash } from 'node:crypto';
import { canonicalJson, canonicalText } from './json.js';

/**
 * What an idempotent retry is compared by: a digest of what the client sent, the same for the same
 * content whatever the order of its keys (scores, experiment results, and runs stored before the digest
 * of their records, `textDigest`). These hashes digest `canonicalText` and say so by their prefix; hashes
 * stored before it (no prefix) digest `canonicalJson`, and a retry of such a run is compared the way it
 * was stored.
 */
const VERSION = 't1~';
const SPAN = 'span~';
const RECORD = 'r1~';

export function contentHash(input: unknown): string {
  return VERSION + hash('sha256', canonicalText(input), 'base64url');
}

/**
 * What a run made from an OpenTelemetry span is compared by instead: OTLP defines a span by its trace and
 * span id, and a span exported again with those is the run it already is, whatever else the exporter's
 * retry changed (an attribute a collector added on the way). Nothing to digest for each span.
 */
export function spanIdentity(traceId: string): string {
  return SPAN + traceId;
}

/**
 * What a run with a client id is now compared by: a digest of the text of its stored record (less what the
 * server adds; runs.document.ts `recordDigest`), which ingestion writes anyway. Its owner compares records
 * whose digests differ by their content (any key order), so a digest only has to be equal for equal text.
 */
export function textDigest(text: string): string {
  return RECORD + hash('sha256', text, 'base64url');
}

export const isTextDigest = (stored: string): boolean => stored.startsWith(RECORD);

/**
 * Whether a stored hash is that of this input. `hashed` is what was computed for the input the way it is
 * stored now (its textDigest or spanIdentity): equal digests are the same; hashes stored before them are
 * compared the way they were made, from the input (a retry of an older run only).
 */
export function sameContent(stored: string, input: unknown, hashed: string): boolean {
  if (stored.startsWith(RECORD) || stored.startsWith(SPAN)) return stored === hashed;
  if (stored.startsWith(VERSION)) return stored === contentHash(input);
  return stored === hash('sha256', canonicalJson(input), 'base64url');
}
