/** OTLP/JSON as protobufjs' `fromObject` takes it: 64-bit integers kept exact, hex ids made bytes, shapes checked. */

const ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);
// JSON.parse rounds integers past 2^53, which moves a nanosecond time to another millisecond: OTLP's
// 64-bit keys are quoted before parsing. Inside string values the quotes are escaped, so nothing there matches.
export const BIG_INTS = /"(startTimeUnixNano|endTimeUnixNano|timeUnixNano|intValue)"(\s*):(\s*)(-?\d{16,})(?=\s*[,}\]])/g;
const INT64_KEYS = new Set(['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'intValue']);

/**
 * An OTLP/JSON message as protobufjs' `fromObject` takes it, in place: hex ids made bytes, 64-bit
 * integers checked to be digits (protobufjs would read "12x" as 12 and "abc" as 0).
 */
export function prepareJson(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) prepareJson(item);
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (ID_KEYS.has(key) && typeof member === 'string') {
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(member)) throw new SyntaxError(`${key} ${JSON.stringify(member.slice(0, 40))} is not hex.`);
      object[key] = Buffer.from(member, 'hex');
    } else if (INT64_KEYS.has(key)) {
      if (!(typeof member === 'number' ? Number.isInteger(member) : typeof member === 'string' && /^-?\d{1,20}$/.test(member)))
        throw new SyntaxError(`${key} must be an integer.`);
    } else prepareJson(member);
  }
}

export function listOf(value: unknown, where: string): unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${where}: array expected`);
  return value;
}

export function objectOf(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`${where}: object expected`);
  return value as Record<string, unknown>;
}
