import { hash } from 'node:crypto';
import { canonicalJson, canonicalText } from './json.js';

/**
 * What an idempotent retry of a run is compared by: a digest of the run as the client sent it, the same
 * for the same content whatever the order of its keys. New hashes digest `canonicalText` and say so by
 * their prefix; hashes stored before it (no prefix) digest `canonicalJson`, and a retry of such a run is
 * compared the way it was stored.
 */
const VERSION = 't1~';
const SPAN = 'span~';

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

/** Whether a stored hash is that of this input (`hashed`: its contentHash or spanIdentity, already computed). */
export function sameContent(stored: string, input: unknown, hashed: string): boolean {
  return stored.startsWith(VERSION) || stored.startsWith(SPAN) ? stored === hashed : stored === hash('sha256', canonicalJson(input), 'base64url');
}
