// Realistic run payloads for the ingestion benchmark: mostly LLM calls, with chains, tools and
// retrievers around them; traces of them as a tracer sends them, and one big trace as an agent's tree.
// Deterministic (seeded PRNG) so two bench runs send comparable data.

const DAY = 86_400_000;

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the customer asked about refund policy for annual plans and whether the invoice can be split across two cost centers ' +
  'please summarize the following support ticket in three bullet points focusing on the root cause and next steps ' +
  'retrieved context mentions that the deployment failed because the database migration timed out during peak traffic ' +
  'you are a helpful assistant that answers concisely and cites the documents you used when they are relevant ' +
  'translate the product description into german keeping the brand names unchanged and the tone friendly ' +
  'the order shipped on tuesday tracking shows a delay at the regional hub estimated delivery is friday afternoon ' +
  'classify the intent of this message as billing technical account or other and return only the label ' +
  'according to the knowledge base article the api rate limit is one thousand requests per minute per token ' +
  'draft a polite reply that apologizes for the outage explains the mitigation and offers a service credit'
).split(' ');

/** A ~64 KB corpus of words; text fields are random slices of it (cheap, and still varied). */
export function buildCorpus(rand) {
  const parts = [];
  let length = 0;
  while (length < 65_536) {
    const word = WORDS[Math.floor(rand() * WORDS.length)];
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ');
}

const SHAPES = [
  // [weight, name, kind, hasModel]
  [40, 'chat.completion', 'llm', true],
  [12, 'summarize_ticket', 'llm', true],
  [10, 'classify_intent', 'llm', true],
  [8, 'rag.answer', 'chain', true],
  [8, 'retrieve_context', 'retriever', false],
  [6, 'embed_documents', 'embedding', true],
  [6, 'tool.search_web', 'tool', false],
  [5, 'support_agent', 'agent', true],
  [5, 'translate', 'llm', true],
];
const SHAPE_TOTAL = SHAPES.reduce((s, x) => s + x[0], 0);

const MODELS = {
  llm: [
    ['gpt-4o-mini', 0.15, 0.6],
    ['gpt-4o', 2.5, 10],
    ['claude-3-5-sonnet', 3, 15],
    ['llama-3.1-70b', 0.6, 0.8],
  ],
  chain: [
    ['gpt-4o-mini', 0.15, 0.6],
    ['gpt-4o', 2.5, 10],
  ],
  agent: [
    ['gpt-4o', 2.5, 10],
    ['claude-3-5-sonnet', 3, 15],
  ],
  embedding: [['text-embedding-3-small', 0.02, 0]],
};

const TAGS = ['production', 'staging', 'v2', 'beta', 'rag', 'support', 'batch', 'eval', 'customer:acme', 'customer:globex', 'ab:variant-b', 'lang:en'];
const ENVS = ['production', 'production', 'production', 'staging'];
const ERRORS = [
  'RateLimitError: 429 Too Many Requests from upstream provider; retry after 20s',
  'TimeoutError: upstream did not answer within 30000 ms',
  'ContextLengthExceeded: 131072 tokens requested, model maximum is 128000',
];

export class RunGenerator {
  /**
   * `order: 'chronological'` (default) replays the spread in start-time order, as live traffic arrives
   * (runs of a batch within about a minute of each other); `'random'` scatters every run over the
   * whole spread, like a backfill of old data in no particular order.
   * @param {{ seed?: number, now?: number, spreadDays?: number, total?: number, order?: 'chronological' | 'random' }} options
   */
  constructor({ seed = 42, now = Date.now(), spreadDays = 30, total = 1_000_000, order = 'chronological' } = {}) {
    this.total = total;
    this.order = order;
    this.rand = mulberry32(seed);
    this.corpus = buildCorpus(this.rand);
    this.now = now;
    this.spreadMs = spreadDays * DAY;
    this.counter = 0;
  }

  text(min, max) {
    const length = min + Math.floor(this.rand() * (max - min));
    const start = Math.floor(this.rand() * (this.corpus.length - length));
    return this.corpus.slice(start, start + length);
  }

  pick(list) {
    return list[Math.floor(this.rand() * list.length)];
  }

  run() {
    const r = this.rand;
    const n = this.counter++;
    let w = r() * SHAPE_TOTAL;
    let shape = SHAPES[0];
    for (const s of SHAPES) {
      w -= s[0];
      if (w <= 0) {
        shape = s;
        break;
      }
    }
    const [, name, kind, hasModel] = shape;
    // Started in the last 30 days (in arrival order, or anywhere); latency 150 ms .. ~20 s, skewed short.
    const start =
      this.order === 'random'
        ? this.now - Math.floor(r() * this.spreadMs)
        : Math.min(this.now, this.now - this.spreadMs + Math.floor((n / this.total) * this.spreadMs) + Math.floor(r() * 60_000));
    const latency = 150 + Math.floor(Math.pow(r(), 3) * 20_000);
    const roll = r();
    const status = roll < 0.02 ? 'running' : roll < 0.07 ? 'failed' : 'succeeded';

    const run = {
      name,
      kind,
      status,
      startTime: new Date(start).toISOString(),
      inputs: {
        messages: [
          { role: 'system', content: this.text(60, 140) },
          { role: 'user', content: this.text(100, 260) },
        ],
        temperature: Math.round(r() * 10) / 10,
      },
    };
    if (status !== 'running') run.endTime = new Date(start + latency).toISOString();
    if (status === 'succeeded') run.outputs = { content: this.text(120, 320), finishReason: r() < 0.95 ? 'stop' : 'length' };
    if (status === 'failed') run.error = this.pick(ERRORS);
    if (hasModel) {
      const [model, inPrice, outPrice] = this.pick(MODELS[kind]);
      const promptTokens = 40 + Math.floor(r() * 2000);
      const completionTokens = kind === 'embedding' || status !== 'succeeded' ? 0 : 10 + Math.floor(r() * 800);
      run.model = model;
      run.usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
      run.cost = Math.round(((promptTokens * inPrice + completionTokens * outPrice) / 1e6) * 1e8) / 1e8;
    }
    const tagCount = r() < 0.5 ? 2 : 3;
    const tags = [];
    while (tags.length < tagCount) {
      const tag = this.pick(TAGS);
      if (!tags.includes(tag)) tags.push(tag);
    }
    run.tags = tags;
    run.metadata = {
      userId: `user_${Math.floor(r() * 50_000)}`,
      sessionId: `sess_${((n * 2654435761) >>> 0).toString(16)}`,
      environment: this.pick(ENVS),
    };
    return run;
  }

  batch(size) {
    const runs = new Array(size);
    for (let i = 0; i < size; i++) runs[i] = this.run();
    return runs;
  }
}

/**
 * Traces as a tracer sends them (bench/traces.js, bench/pages.js): a root agent with 0..8 children (4 on
 * average), ids of the client's (`tr-<n>-<i>`), sessions of five traces, 10,000 end users; one trace in
 * 10,000 holds the rare word `zyzzyva` (what a search for an error or order number looks like).
 */
export class TraceGenerator {
  constructor(total, now, spreadDays = 30) {
    this.runs = new RunGenerator({ seed: 20261124, now, total, spreadDays });
    this.rand = this.runs.rand;
    this.trace = 0;
    this.pending = [];
  }

  static traceId(t) {
    return `tr-${t.toString(36).padStart(8, '0')}`;
  }

  nextTrace() {
    const t = this.trace++;
    const traceId = TraceGenerator.traceId(t);
    const session = `session-${Math.floor(t / 5)}`;
    const user = `user-${Math.floor(t / 5) % 10_000}`;
    const root = { ...this.runs.run(), id: `${traceId}-0`, traceId, name: 'support_agent', kind: 'agent', sessionId: session, userId: user };
    if (t % 10_000 === 0) root.inputs = { ...root.inputs, order: `order zyzzyva-${t}` };
    const children = Math.floor(this.rand() * 9);
    const out = [root];
    for (let i = 1; i <= children; i++)
      out.push({ ...this.runs.run(), id: `${traceId}-${i}`, traceId, parentRunId: root.id, sessionId: session, userId: user });
    return out;
  }

  batch(size) {
    while (this.pending.length < size) this.pending.push(...this.nextTrace());
    return this.pending.splice(0, size);
  }
}

/** What a step of an agent calls, by weight: [weight, name, kind] (a chain nests more of them). */
const STEP_CALLS = [
  [30, 'chat.completion', 'llm'],
  [14, 'tool.search_web', 'tool'],
  [10, 'tool.lookup_order', 'tool'],
  [10, 'retrieve_context', 'retriever'],
  [6, 'embed_documents', 'embedding'],
  [30, 'rag.answer', 'chain'],
];
const STEP_TOTAL = STEP_CALLS.reduce((s, x) => s + x[0], 0);

/**
 * One trace of `total` runs as a long-running agent records it: a root agent, steps (chains) one after
 * the other, each calling LLMs, tools and retrievers and nesting chains of its own (up to 7 levels), every
 * run inside its parent's time and after its previous sibling; about one run in 20 failed (its parents
 * not). In tree order (parents first), ids `<traceId>-<n>`; `deepest` is the id of a run at the greatest depth.
 * @returns {{ runs: object[], deepest: string, depth: number }}
 */
export function agentTrace({ traceId, total, start, seed = 7 }) {
  const gen = new RunGenerator({ seed, now: start, total });
  const rand = gen.rand;
  const runs = [];
  let deepest = { id: null, depth: -1 };
  const make = (name, kind, parentRunId, depth) => {
    const run = { ...gen.run(), id: `${traceId}-${runs.length}`, traceId, name, kind, parentRunId, sessionId: 'session-big', userId: 'user-big' };
    delete run.endTime;
    delete run.error;
    delete run.outputs;
    if (kind !== 'llm' && kind !== 'chain' && kind !== 'agent' && kind !== 'embedding') {
      delete run.model;
      delete run.usage;
      delete run.cost;
    }
    runs.push(run);
    if (depth > deepest.depth) deepest = { id: run.id, depth };
    return run;
  };
  // Lays out `run`'s children from `at` (ms): returns when the last of them ended.
  const children = (parent, depth, at, budget) => {
    let left = budget;
    let t = at;
    while (left > 0 && runs.length < total) {
      let w = rand() * STEP_TOTAL;
      let call = STEP_CALLS[0];
      for (const c of STEP_CALLS) {
        w -= c[0];
        if (w <= 0) {
          call = c;
          break;
        }
      }
      const [name, kind] = depth >= 7 && call[2] === 'chain' ? ['chat.completion', 'llm'] : [call[1], call[2]];
      const run = make(name, kind, parent.id, depth);
      t += 5 + Math.floor(rand() * 40);
      const begin = t;
      left--;
      if (kind === 'chain') {
        const size = Math.min(left, 2 + Math.floor(rand() * 8));
        t = children(run, depth + 1, t, size);
        left -= size;
      } else t += 80 + Math.floor(Math.pow(rand(), 2) * 3000);
      finish(run, begin, t);
    }
    return t;
  };
  const finish = (run, begin, end) => {
    run.startTime = new Date(start + begin).toISOString();
    run.endTime = new Date(start + end).toISOString();
    const failed = run.kind !== 'chain' && run.kind !== 'agent' && rand() < 0.05;
    run.status = failed ? 'failed' : 'succeeded';
    if (failed) run.error = gen.pick(ERRORS);
    else run.outputs = { content: gen.text(120, 320), finishReason: 'stop' };
  };
  const root = make('support_agent', 'agent', null, 0);
  let t = 0;
  while (runs.length < total) {
    const step = make('agent.step', 'chain', root.id, 1);
    const begin = (t += 10);
    t = children(step, 2, t, Math.min(total - runs.length, 20 + Math.floor(rand() * 80)));
    finish(step, begin, t);
  }
  finish(root, 0, t + 10);
  delete root.parentRunId;
  return { runs, deepest: deepest.id, depth: deepest.depth };
}
