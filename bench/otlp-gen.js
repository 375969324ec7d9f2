// Agent traces as an OpenTelemetry GenAI instrumentation exports them, for the OTLP benchmark: each trace
// a root `invoke_agent` span with 5..10 children (model calls, tools, retrieval, embeddings), every span
// carrying the GenAI attributes (operation, request and response model, provider, token counts, ~300
// bytes of input and of output messages), `session.id` and `user.id`. Requests hold whole traces, and
// half of the traces list their children before their root (exporters send a span when it ends, and the
// root ends last). Deterministic (seeded PRNG), so two bench runs send the same spans.
import { buildCorpus, mulberry32 } from './runs-gen.js';

const CHILDREN = [
  // [weight, operation, span name, model, provider]
  [50, 'chat', 'chat gpt-4o-mini', 'gpt-4o-mini', 'openai'],
  [15, 'chat', 'chat claude-3-5-sonnet', 'claude-3-5-sonnet', 'anthropic'],
  [15, 'execute_tool', 'execute_tool search_knowledge_base', 'gpt-4o-mini', 'openai'],
  [10, 'retrieval', 'retrieval knowledge_base', 'text-embedding-3-small', 'openai'],
  [10, 'embeddings', 'embeddings text-embedding-3-small', 'text-embedding-3-small', 'openai'],
];
const CHILD_TOTAL = CHILDREN.reduce((sum, c) => sum + c[0], 0);
const ERROR = 'RateLimitError: 429 Too Many Requests from upstream provider; retry after 20s';

/** An OTLP/JSON attribute (integers as decimal text, as OTLP/JSON sends 64-bit values). */
const attr = (key, value) => ({ key, value: typeof value === 'string' ? { stringValue: value } : { intValue: String(value) } });

export class OtlpTraceGenerator {
  /**
   * `plant`: a word the corpus does not have, added to the user message of about `rate` of the spans (what a
   * search for a rare word finds).
   * @param {{ seed?: number, startMs?: number, service?: string, plant?: { word: string, rate: number } | null }} options
   */
  constructor({ seed = 1302, startMs = Date.now() - 3_600_000, service = 'bench-otlp', plant = null } = {}) {
    this.rand = mulberry32(seed);
    this.corpus = buildCorpus(this.rand);
    this.clockMs = startMs;
    this.service = service;
    this.plant = plant;
  }

  int(min, max) {
    return min + Math.floor(this.rand() * (max - min + 1));
  }

  hex(bytes) {
    let out = '';
    for (let i = 0; i < bytes; i++)
      out += Math.floor(this.rand() * 256)
        .toString(16)
        .padStart(2, '0');
    return out;
  }

  text(min, max) {
    const length = this.int(min, max);
    const start = Math.floor(this.rand() * (this.corpus.length - length));
    return this.corpus.slice(start, start + length);
  }

  /** About 300 bytes of GenAI messages as JSON text (`[{ role, parts: [{ type: 'text', content }] }]`). */
  messages(side) {
    const list =
      side === 'input'
        ? [
            { role: 'system', parts: [{ type: 'text', content: this.text(60, 90) }] },
            { role: 'user', parts: [{ type: 'text', content: this.userText() }] },
          ]
        : [{ role: 'assistant', parts: [{ type: 'text', content: this.text(220, 260) }], finish_reason: 'stop' }];
    return JSON.stringify(list);
  }

  userText() {
    const text = this.text(110, 150);
    return this.plant && this.rand() < this.plant.rate ? `${text} ${this.plant.word}` : text;
  }

  span(trace, parentSpanId, [operation, name, model, provider], startMs, durationMs, session, user) {
    const failed = operation === 'chat' && this.rand() < 0.03;
    const nanos = (ms) => (BigInt(ms) * 1_000_000n + BigInt(this.int(0, 999_999))).toString();
    const attributes = [
      attr('gen_ai.operation.name', operation),
      attr('gen_ai.provider.name', provider),
      attr('gen_ai.request.model', model),
      attr('gen_ai.response.model', model === 'gpt-4o-mini' ? 'gpt-4o-mini-2024-07-18' : model),
      attr('gen_ai.usage.input_tokens', this.int(40, 2000)),
      attr('gen_ai.usage.output_tokens', operation === 'embeddings' || failed ? 0 : this.int(10, 800)),
      attr('gen_ai.input.messages', this.messages('input')),
      attr('gen_ai.output.messages', this.messages('output')),
      attr('session.id', session),
      attr('user.id', user),
    ];
    if (failed) attributes.push(attr('error.type', 'RateLimitError'));
    return {
      traceId: trace,
      spanId: this.hex(8),
      ...(parentSpanId ? { parentSpanId } : {}),
      name,
      kind: operation === 'invoke_agent' ? 1 : 3,
      startTimeUnixNano: nanos(startMs),
      endTimeUnixNano: nanos(startMs + durationMs),
      attributes,
      status: failed ? { code: 2, message: ERROR } : {},
    };
  }

  /** One trace of `size` spans (a root and size - 1 children), in the order an exporter would send them. */
  trace(size) {
    const trace = this.hex(16);
    const session = `sess_${this.hex(6)}`;
    const user = `user_${this.int(1, 50_000)}`;
    const start = (this.clockMs += this.int(20, 80));
    const children = [];
    let at = start + this.int(1, 20);
    const rootSpanId = this.hex(8);
    for (let i = 1; i < size; i++) {
      let w = this.rand() * CHILD_TOTAL;
      const shape = CHILDREN.find((c) => (w -= c[0]) <= 0) ?? CHILDREN[0];
      const duration = this.int(80, 4000);
      children.push(this.span(trace, rootSpanId, shape.slice(1), at, duration, session, user));
      at += duration + this.int(1, 30);
    }
    const root = this.span(trace, null, ['invoke_agent', 'invoke_agent support_agent', 'gpt-4o', 'openai'], start, at - start + 5, session, user);
    root.spanId = rootSpanId;
    return this.rand() < 0.5 ? [...children, root] : [root, ...children];
  }

  /** An OTLP/JSON `ExportTraceServiceRequest` of exactly `spans` spans, in whole traces of 6..11 spans (the last ones fit what is left). */
  request(spans) {
    const list = [];
    while (list.length < spans) {
      const left = spans - list.length;
      const size = left <= 11 ? left : left < 17 ? left - 6 : this.int(6, 11);
      list.push(...this.trace(size));
    }
    return this.requestOf(list);
  }

  /** An OTLP/JSON `ExportTraceServiceRequest` of these spans, under this generator's resource and scope. */
  requestOf(list) {
    return {
      resourceSpans: [
        {
          resource: {
            attributes: [attr('service.name', this.service), attr('telemetry.sdk.language', 'python'), attr('deployment.environment', 'production')],
          },
          scopeSpans: [{ scope: { name: 'opentelemetry.instrumentation.genai', version: '0.1.0' }, spans: list }],
        },
      ],
    };
  }
}
