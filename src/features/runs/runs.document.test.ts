import fastJson from 'fast-json-stringify';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runRecord, serializeRun } from './runs.document.js';
import { RunSchema, type Run } from './runs.schemas.js';

/** The stored run document is exactly what the response schema's own serializer makes of the record. */
describe('run documents', () => {
  const bySchema = fastJson(RunSchema) as (run: Run) => string;
  const json = fc.jsonValue({ maxDepth: 4 }).map((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { v }));

  it('serializeRun(runRecord(…)) equals the response schema serialization, for any content', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.string({ minLength: 1 }),
          name: fc.string(),
          parent: fc.option(fc.string()),
          status: fc.constantFrom('running', 'succeeded', 'failed'),
          kind: fc.constantFrom('llm', 'chain', 'tool', 'retriever', 'embedding', 'agent', 'custom'),
          start: fc.integer({ min: 0, max: 4_102_444_800_000 }),
          latency: fc.option(fc.integer({ min: 0, max: 86_400_000 })),
          model: fc.option(fc.string()),
          tokens: fc.option(fc.integer({ min: 0, max: 1_000_000_000_000 })),
          cost: fc.option(fc.double({ min: 0, max: 1e12, noNaN: true })),
          inputs: fc.jsonValue({ maxDepth: 4 }),
          outputs: fc.jsonValue({ maxDepth: 4 }),
          session: fc.option(fc.string({ minLength: 1 })),
          user: fc.option(fc.string({ minLength: 1 })),
          provider: fc.option(fc.string({ minLength: 1 })),
          details: fc.boolean(),
          price: fc.option(
            fc.record({
              source: fc.constantFrom('builtin' as const, 'organization' as const),
              id: fc.option(fc.string()),
              model: fc.string(),
              provider: fc.option(fc.string()),
              inputPrice: fc.double({ min: 0, max: 1000, noNaN: true }),
              outputPrice: fc.double({ min: 0, max: 1000, noNaN: true }),
              cacheReadPrice: fc.option(fc.double({ min: 0, max: 1000, noNaN: true })),
              cacheWritePrice: fc.option(fc.double({ min: 0, max: 1000, noNaN: true })),
              reasoningPrice: fc.option(fc.double({ min: 0, max: 1000, noNaN: true })),
            }),
          ),
          error: fc.option(fc.string()),
          tags: fc.array(fc.string({ minLength: 1 }), { maxLength: 5 }),
          metadata: json,
        }),
        (r) => {
          const record = runRecord(
            {
              project_id: 'prj_1',
              id: r.id,
              trace_id: r.id,
              parent_run_id: r.parent,
              name: r.name,
              kind: r.kind,
              status: r.status,
              start_time: r.start,
              end_time: r.latency === null ? null : r.start + r.latency,
              latency_ms: r.latency,
              model: r.model,
              total_tokens: r.tokens,
              cost: r.cost,
              created_at: r.start,
              session_id: r.session,
              user_id: r.user,
            },
            {
              inputs: r.inputs,
              outputs: r.outputs,
              error: r.error,
              tags: r.tags,
              metadata: r.metadata,
              provider: r.provider,
              costSource: r.price ? 'computed' : r.cost === null ? null : 'client',
              price: r.price,
              usage:
                r.tokens === null
                  ? null
                  : {
                      promptTokens: r.tokens,
                      completionTokens: 0,
                      totalTokens: r.tokens,
                      ...(r.details ? { cacheReadTokens: r.tokens, reasoningTokens: 0 } : {}),
                    },
            },
          );
          expect(serializeRun(record)).toBe(bySchema(record));
        },
      ),
      { numRuns: 300 },
    );
  });
});
