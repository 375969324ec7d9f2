// Realistic run payloads for the ingestion benchmark: mostly LLM calls, with chains, tools and
// retrievers around them. Deterministic (seeded PRNG) so two bench runs send comparable data.

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
