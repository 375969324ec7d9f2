/**
 * OTLP requests by volume (docs/otlp.md, OTLP limits): many traces in one request on both engines (1,900
 * distinct traces used to fail on SQLite with "too many SQL variables", about 4,000 on PostgreSQL, and
 * the batch was lost to a 500), the documented limits answered with 413 or `partialSuccess`, and
 * projects created on first use within their bounds.
 */
import { describe, expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import { MAX_OTLP_SPANS, MAX_RESOURCE_ATTRIBUTES, MAX_SPAN_MESSAGES } from './otlp.bounds.js';
import { decodeOtlpResponse } from './otlp.decode.js';
import { MAX_OTLP_MESSAGES } from './otlp.bounds.js';
import { emptySpansRequest, otlpCaller } from './otlp.test-support.js';

const hex = (n: number, length: number) => n.toString(16).padStart(length, '0');
const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
const span = (trace: number, id: number, attributes: unknown[] = []) => ({
  traceId: hex(trace, 32),
  spanId: hex(id, 16),
  name: 'llm call',
  kind: 3,
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000500000000',
  attributes,
});
const resource = (service: string, spans: unknown[], attributes: unknown[] = []) => ({
  resource: { attributes: [text('service.name', service), ...attributes] },
  scopeSpans: [{ scope: { name: 'volume' }, spans }],
});

describeEachDialect('OTLP by volume and at the limits', (ctx) => {
  it('stores 8,192 spans in 8,192 traces (a Collector batch of one short trace per call), every one readable', async () => {
    const otlp = await otlpCaller(ctx);
    const spans = Array.from({ length: 8_192 }, (_, i) => span(i + 1, i + 1));
    const res = await otlp.sendProtobuf({ resourceSpans: [resource('many-traces', spans)] });
    expect(res.statusCode, res.body).toBe(200);
    expect(decodeOtlpResponse(res.rawPayload)).toEqual({});
    const runs = await otlp.allRuns((await otlp.project('many-traces')).id);
    expect(runs.size).toBe(8_192);
    for (let i = 1; i <= 8_192; i += 511) expect(runs.get(hex(i, 16))).toMatchObject({ traceId: hex(i, 32), status: 'succeeded' });
    const traces = await ctx.request('GET', `/v1/projects/${(await otlp.project('many-traces')).id}/traces?limit=1`, { token: otlp.caller.token });
    expect(traces.json().items).toHaveLength(1);
    // Sent again (an exporter's retry), nothing changes: the same spans are the same runs.
    const again = await otlp.sendProtobuf({ resourceSpans: [resource('many-traces', spans)] });
    expect(again.statusCode).toBe(200);
    expect(decodeOtlpResponse(again.rawPayload)).toEqual({});
    expect((await otlp.allRuns((await otlp.project('many-traces')).id)).size).toBe(8_192);
  });

  it(`refuses more than ${MAX_OTLP_SPANS.toLocaleString('en-US')} spans, or ${MAX_RESOURCE_ATTRIBUTES.toLocaleString('en-US')} resource attributes, with a 413 before storing any`, async () => {
    const otlp = await otlpCaller(ctx);
    const spans = await otlp.send(emptySpansRequest(MAX_OTLP_SPANS + 1), { 'content-type': 'application/x-protobuf' });
    expectProblem(
      spans,
      413,
      'payload-too-large',
      `The request holds more than ${MAX_OTLP_SPANS.toLocaleString('en-US')} spans; export fewer spans at once (for example the Collector's batch processor with send_batch_max_size).`,
    );

    const wide = Array.from({ length: MAX_RESOURCE_ATTRIBUTES }, (_, i) => text(`k${i}`, ''));
    const attributes = await otlp.sendProtobuf({ resourceSpans: [resource('too-wide', [span(1, 1)], wide)] });
    expectProblem(attributes, 413, 'payload-too-large');
    expect(attributes.json().detail).toMatch(/resources hold more than 200,000 attributes/);
    const projects = await ctx.request('GET', '/v1/projects?name=too-wide', { token: otlp.caller.token });
    expect(projects.json().items).toEqual([]);
  });

  it(`refuses a span of more than ${MAX_SPAN_MESSAGES.toLocaleString('en-US')} attributes and values in partialSuccess, and stores the others`, async () => {
    const otlp = await otlpCaller(ctx);
    const crowded = Array.from({ length: MAX_SPAN_MESSAGES / 2 + 1 }, (_, i) => text(`a${i}`, 'v'));
    const res = await otlp.sendProtobuf({ resourceSpans: [resource('crowded', [span(1, 1), span(1, 2, crowded), span(1, 3)])] });
    expect(res.statusCode, res.body).toBe(200);
    expect(decodeOtlpResponse(res.rawPayload)).toEqual({
      partialSuccess: {
        rejectedSpans: 1,
        errorMessage: `A span holds more than ${MAX_SPAN_MESSAGES.toLocaleString('en-US')} attributes, values, events and links.`,
      },
    });
    expect([...(await otlp.allRuns((await otlp.project('crowded')).id)).keys()].sort()).toEqual([hex(1, 16), hex(3, 16)]);
  });
});

describeEachDialect(
  'OTLP projects created on first use, within their bounds',
  (ctx) => {
    it('creates at most 3 projects per request and 5 per organization per hour, refusing the rest of the spans with the reason', async () => {
      const otlp = await otlpCaller(ctx);
      const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
      const send = (services: string[], first: number) =>
        otlp.sendProtobuf({
          resourceSpans: services.map((service, i) => resource(service, [span(first + i, first + i), span(first + i, 10_000 + first + i)])),
        });

      const first = await send(names('first', 6), 1);
      expect(first.statusCode, first.body).toBe(200);
      expect(decodeOtlpResponse(first.rawPayload)).toEqual({
        partialSuccess: {
          rejectedSpans: 6,
          errorMessage:
            'Project "first-3" does not exist and was not created: one export may create at most 3 projects (SIGHTLINE_OTLP_NEW_PROJECTS_PER_REQUEST). Create it with POST /v1/projects, or send it again.',
        },
      });
      const listed = async () =>
        ((await ctx.request('GET', '/v1/projects?limit=100', { token: otlp.caller.token })).json().items as { name: string }[]).map((p) => p.name).sort();
      expect(await listed()).toEqual(['first-0', 'first-1', 'first-2']);
      for (const name of ['first-0', 'first-1', 'first-2']) expect((await otlp.allRuns((await otlp.project(name)).id)).size).toBe(2);

      // The next request may create 2 more (5 in the hour), and still sends to the projects that exist.
      const second = await send([...names('second', 3), 'first-0'], 100);
      expect(decodeOtlpResponse(second.rawPayload)).toEqual({
        partialSuccess: {
          rejectedSpans: 2,
          errorMessage:
            'Project "second-2" does not exist and was not created: the organization has created 5 projects in the past hour (SIGHTLINE_OTLP_NEW_PROJECTS_PER_HOUR). Create it with POST /v1/projects.',
        },
      });
      expect(await listed()).toEqual(['first-0', 'first-1', 'first-2', 'second-0', 'second-1']);
      expect((await otlp.allRuns((await otlp.project('first-0')).id)).size).toBe(4);

      // Created with the API, a project takes spans whatever OTLP may create.
      const created = await ctx.request('POST', '/v1/projects', { token: otlp.caller.token, body: { name: 'second-2' } });
      expect(created.statusCode).toBe(201);
      const third = await send(['second-2'], 200);
      expect(decodeOtlpResponse(third.rawPayload)).toEqual({});
    });
  },
  { env: { SIGHTLINE_OTLP_NEW_PROJECTS_PER_REQUEST: '3', SIGHTLINE_OTLP_NEW_PROJECTS_PER_HOUR: '5' } },
);

describe('OTLP limits', () => {
  it('are the table of docs/otlp.md', async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../../../docs/otlp.md', import.meta.url), 'utf8');
    const table = page.slice(page.indexOf('## OTLP limits'), page.indexOf('## How spans become runs'));
    expect(table).toContain(`| Spans | ${MAX_OTLP_SPANS.toLocaleString('en-US')} (traces: up to one per span) | 413 |`);
    expect(table).toContain(`| Resource attributes, all the request's resources together | ${MAX_RESOURCE_ATTRIBUTES.toLocaleString('en-US')} | 413 |`);
    expect(table).toContain(`| Attributes, values, events and links of one span | ${MAX_SPAN_MESSAGES.toLocaleString('en-US')} |`);
    expect(table).toContain(`| Spans, attributes, values, events and links, all together | ${MAX_OTLP_MESSAGES.toLocaleString('en-US')} |`);
  });
});
