import fastJson from 'fast-json-stringify';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toTrace, type TraceListRow } from './traces.repo.js';
import { TracePage, TraceSchema } from './traces.schemas.js';

/** The traces list is sent as native JSON.stringify of its page: exactly what its response schema's serializer writes. */
describe('the traces page', () => {
  const bySchema = fastJson(TracePage as Parameters<typeof fastJson>[0], { schema: { Trace: TraceSchema as Parameters<typeof fastJson>[0] } }) as (
    page: unknown,
  ) => string;
  const text = fc.string({ unit: 'binary' }); // lone surrogates and control characters too
  const count = fc.integer({ min: 0, max: 1_000_000_000 });
  const row = fc.record({
    project_id: fc.constant('prj_1'),
    trace_id: fc.string({ minLength: 1 }),
    root_run_id: fc.option(fc.string({ minLength: 1 })),
    name: text,
    session_id: fc.option(text),
    user_id: fc.option(text),
    run_count: count,
    error_count: count,
    running_count: count,
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count,
    cache_read_tokens: count,
    cache_creation_tokens: count,
    reasoning_tokens: count,
    cost: fc.double({ min: 0, max: 1e9, noNaN: true }),
    computed_cost: fc.double({ min: 0, max: 1e9, noNaN: true }),
    estimated_tokens: count,
    estimated_cost: fc.double({ min: 0, max: 1e9, noNaN: true }),
    start_time: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    span: fc.integer({ min: 0, max: 86_400_000 }),
    head: fc.record({ tags: fc.array(text, { maxLength: 4 }), input: fc.option(text), output: fc.option(text) }),
  });
  const summary = fc.record({
    name: text,
    dataType: fc.constantFrom('numeric' as const, 'boolean' as const, 'categorical' as const),
    value: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), text),
    count: fc.integer({ min: 1, max: 1_000_000 }),
  });

  it('JSON.stringify of the page equals the schema serialization, for any traces', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(row, fc.array(summary, { maxLength: 3 }), fc.array(summary, { maxLength: 3 })), { maxLength: 5 }),
        fc.option(fc.string({ minLength: 1 })),
        fc.integer({ min: 1, max: 100 }),
        (traces, nextCursor, limit) => {
          const items = traces.map(([{ span, ...r }, scores, rootScores]) =>
            toTrace({ ...r, end_time: r.start_time + span } as TraceListRow, scores, rootScores),
          );
          const page = { items, nextCursor, limit };
          expect(JSON.stringify(page)).toBe(bySchema(page));
        },
      ),
      { numRuns: 500 },
    );
  });
});
