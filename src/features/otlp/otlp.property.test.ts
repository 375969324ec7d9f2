/**
 * Random OTLP requests within the documented limits (docs/otlp.md, OTLP limits), in protobuf or JSON: random
 * resources, scopes, span and trace counts, parents (before or after their children, or never sent),
 * attribute counts and nesting, a few spans no run can be made of. Each is stored completely (every
 * valid span a run in its trace, under its parent) with exactly the invalid spans counted in
 * `partialSuccess`, and the server stays healthy.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/helpers/harness.js';
import { decodeOtlpResponse } from './otlp.decode.js';
import { otlpCaller } from './otlp.test-support.js';

const hex = (n: number, length: number) => n.toString(16).padStart(length, '0');

type AnyValue = Record<string, unknown>;
const leaf: fc.Arbitrary<AnyValue> = fc.oneof(
  fc.string({ maxLength: 12 }).map((stringValue) => ({ stringValue })),
  fc.boolean().map((boolValue) => ({ boolValue })),
  fc.oneof(fc.integer(), fc.constant('-9223372036854775808'), fc.constant('9007199254740993')).map((n) => ({ intValue: String(n) })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((doubleValue) => ({ doubleValue })),
);
const { value: anyValue } = fc.letrec<{ value: AnyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
    fc.array(fc.record({ key: fc.string({ maxLength: 6 }), value: tie('value') }), { maxLength: 3 }).map((values) => ({ kvlistValue: { values } })),
  ),
}));
const attributes = (max: number) =>
  fc.array(fc.record({ key: fc.string({ minLength: 1, maxLength: 10 }), value: anyValue }), { maxLength: max, size: max > 10 ? 'medium' : 'small' });

/** One span as generated: its trace (an index), its parent (an index into the request's spans, or a span never sent), whether its ids are invalid. */
const spanArb = fc.record({
  trace: fc.nat(1_000_000),
  parent: fc.oneof(fc.constant(null), fc.nat(2_000), fc.constant(-1)),
  invalid: fc.nat(19).map((n) => n === 0),
  attributes: attributes(8),
});
const requestArb = fc.record({
  json: fc.boolean(),
  /** How many traces the spans fall into: from one long trace to a trace for nearly every span. */
  traces: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 5_000 })),
  resources: fc.array(
    fc.record({
      service: fc.constantFrom('a', 'b'),
      attributes: attributes(200),
      // From none to a Collector's batch of thousands (their traces past what one SQL statement may name).
      scopes: fc.array(
        fc.oneof(fc.nat(30), fc.nat(2_500)).chain((n) => fc.array(spanArb, { minLength: n, maxLength: n })),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

let sequence = 0;
/** A order of the spans unlike the request's: a parent ranks before its children. */
const rank = (i: number) => (i * 7919) % 10_007;

describeEachDialect('OTLP requests within the limits, at random', (ctx) => {
  it('are stored completely, the invalid spans counted in partialSuccess, and the server stays healthy', async () => {
    const otlp = await otlpCaller(ctx);
    await fc.assert(
      fc.asyncProperty(requestArb, async (generated) => {
        const run = ++sequence;
        const base = run * 100_000;
        // Every span of the request, in order, with its id; then the expected run of each valid one.
        const all = generated.resources.flatMap((r) => r.scopes.flat());
        const idOf = (i: number) => hex(base + i + 1, 16);
        const traceOf = (trace: number) => hex(base + (trace % generated.traces) + 1, 32);
        const expected = new Map<string, Map<string, { traceId: string; parentRunId: string | null }>>();
        let invalid = 0;
        let index = 0;
        const resourceSpans = generated.resources.map((r) => {
          const project = `prop-${r.service}-${run}`;
          const runs = expected.get(project) ?? new Map();
          expected.set(project, runs);
          return {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: project } }, ...r.attributes] },
            scopeSpans: r.scopes.map((spans, s) => ({
              scope: { name: `scope-${s}`, version: '1' },
              spans: spans.map((span) => {
                const i = index++;
                // A parent in the request, of the same trace (a span of another trace would be another trace's parent),
                // sent before or after its child; ranked so parents never form a cycle.
                const parentIndex = span.parent !== null && span.parent >= 0 && span.parent < all.length && rank(span.parent) < rank(i) ? span.parent : null;
                const parent =
                  parentIndex !== null && traceOf(all[parentIndex]!.trace) === traceOf(span.trace) && !all[parentIndex]!.invalid
                    ? idOf(parentIndex)
                    : span.parent === -1
                      ? hex(base + 99_999, 16)
                      : null;
                if (span.invalid) invalid++;
                else runs.set(idOf(i), { traceId: traceOf(span.trace), parentRunId: parent });
                return {
                  traceId: traceOf(span.trace),
                  spanId: span.invalid ? '0000000000000000' : idOf(i),
                  parentSpanId: parent ?? undefined,
                  name: `span ${i}`,
                  kind: 1 + (i % 5),
                  startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n),
                  endTimeUnixNano: String(1_700_000_000_500_000_000n + BigInt(i) * 1_000_000n),
                  attributes: span.attributes,
                };
              }),
            })),
          };
        });
        const res = generated.json ? await otlp.sendJson({ resourceSpans }) : await otlp.sendProtobuf({ resourceSpans });
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        const answer = generated.json ? (JSON.parse(res.body) as { partialSuccess?: { rejectedSpans: string } }) : decodeOtlpResponse(res.rawPayload);
        expect(Number(answer.partialSuccess?.rejectedSpans ?? 0)).toBe(invalid);
        for (const [project, runs] of expected) {
          if (runs.size === 0) continue;
          const stored = await otlp.allRuns((await otlp.project(project)).id);
          expect(stored.size).toBe(runs.size);
          for (const [id, run] of runs) expect(stored.get(id), id).toMatchObject(run);
        }
        expect((await ctx.request('GET', '/healthz')).statusCode).toBe(200);
      }),
      { numRuns: 10 },
    );
  }, 300_000);
});
