// A local OpenAI-compatible API for the suites of real client libraries (the `openai` package and the
// instrumentation around it): POST /v1/chat/completions and POST /v1/embeddings, answered with the JSON
// the OpenAI API sends, usage details included (a chat completion asked for with `stream: true` as the
// server-sent events the API streams, its usage only when `stream_options.include_usage` asks). What it answers is chosen by the request's model, unless
// answers were scripted (`script`): then each chat completion takes the next scripted answer (a judge's
// JSON, malformed content, a 500, a 429, an answer slower than the caller's timeout, a body too large),
// or one answer for all (`always`). It counts the chat completions it is answering at once (`chats`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The model whose chat completions are refused with 429 (rate limit), and the one answered with 500. */
export const RATE_LIMITED_MODEL = 'gpt-rate-limited';
export const FAILING_MODEL = 'gpt-server-error';
/** The model version every answer names (as OpenAI answers `gpt-4o-mini` with a dated snapshot). */
export const answeredModel = (model: string) => `${model}-2024-07-18`;

/** The usage of every chat completion: cached prompt tokens and reasoning tokens are parts of the totals. */
export const CHAT_USAGE = {
  prompt_tokens: 42,
  completion_tokens: 18,
  total_tokens: 60,
  prompt_tokens_details: { cached_tokens: 32, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 6, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
export const ANSWER = 'It is 14 °C and raining in Paris.';
export const TOOL_CALL = { id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
export const EMBEDDING = [0.0123, -0.0456, 0.0789];
/** The chat model the client suites call, the weather tool they offer it, and a text part of a run's message as Sightline keeps it. */
export const CHAT_MODEL = 'gpt-4o-mini';
export const WEATHER_TOOLS = [
  {
    type: 'function' as const,
    function: { name: TOOL_CALL.name, description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
];
export const textPart = (content: string) => ({ type: 'text', content });

export interface OpenAiRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
}

export interface OpenAiServer {
  /** The base URL to give the client (`…/v1`). */
  baseURL: string;
  requests: OpenAiRequest[];
  /** Queues answers for the next chat completions, in order (then back to the model-chosen ones, or `always`). */
  script(...answers: ScriptedAnswer[]): void;
  /** Chat completions being answered now, and the most there were at once. */
  chats: { inFlight: number; peak: number };
  close(): Promise<void>;
}

export interface OpenAiServerOptions {
  /** The answer of every chat completion that has no scripted one (instead of the model-chosen ones). */
  always?: ScriptedAnswer;
}

/** A scripted answer: a status and JSON (or a raw body), sent after `delayMs`. */
export interface ScriptedAnswer {
  status?: number;
  json?: unknown;
  body?: string;
  delayMs?: number;
}

/** A chat completion whose message content is `content`, with this usage. */
export function completion(
  content: string | null,
  usage: Record<string, unknown> = { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 },
): ScriptedAnswer {
  return {
    status: 200,
    json: {
      id: 'chatcmpl-scripted',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'scripted',
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage,
    },
  };
}

/** An OpenAI-style error answer. */
export function failure(status: number, message: string): ScriptedAnswer {
  return { status, json: { error: { message, type: status === 429 ? 'requests' : 'server_error', param: null, code: null } } };
}

const ERRORS: Record<string, { status: number; error: Record<string, unknown> }> = {
  [RATE_LIMITED_MODEL]: {
    status: 429,
    error: {
      message: 'Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    },
  },
  [FAILING_MODEL]: {
    status: 500,
    error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null },
  },
};

/** A chat completion: a tool call when tools are offered and no tool has answered yet, else the text answer. */
function chatCompletion(body: Record<string, any>) {
  const messages: { role: string }[] = Array.isArray(body.messages) ? body.messages : [];
  const callsTool = Array.isArray(body.tools) && body.tools.length > 0 && !messages.some((m) => m.role === 'tool');
  const message = callsTool
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: TOOL_CALL.id, type: 'function', function: { name: TOOL_CALL.name, arguments: TOOL_CALL.arguments } }],
        refusal: null,
        annotations: [],
      }
    : { role: 'assistant', content: ANSWER, refusal: null, annotations: [] };
  return {
    id: `chatcmpl-${callsTool ? 'tool' : 'text'}-1`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: answeredModel(String(body.model)),
    choices: [{ index: 0, message, logprobs: null, finish_reason: callsTool ? 'tool_calls' : 'stop' }],
    usage: CHAT_USAGE,
    service_tier: 'default',
    system_fingerprint: 'fp_0ba0d124f1',
  };
}

/**
 * A chat completion as server-sent events (`stream: true`): the role, the content in a few pieces (or the
 * tool call's name, then its arguments in pieces), the finish reason; then, only when the client asked
 * for it (`stream_options.include_usage`), a last chunk with the usage and no choices. Then `[DONE]`.
 */
function chatStream(body: Record<string, any>): string {
  const whole = chatCompletion(body);
  const [choice] = whole.choices;
  const message = choice!.message as { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
  const head = { id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model, system_fingerprint: whole.system_fingerprint };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const pieces = (text: string) => [text.slice(0, 7), text.slice(7, 19), text.slice(19)].filter((p) => p !== '');
  const chunks: unknown[] = [chunk({ role: 'assistant', content: message.content === null ? null : '', refusal: null })];
  const call = message.tool_calls?.[0];
  if (call) {
    chunks.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const piece of pieces(call.function.arguments)) chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  } else for (const piece of pieces(message.content ?? '')) chunks.push(chunk({ content: piece }));
  chunks.push(chunk({}, choice!.finish_reason));
  if (body.stream_options?.include_usage === true) chunks.push({ ...head, choices: [], usage: whole.usage });
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}

/** Embeddings, as floats or (what the `openai` client asks for unless told otherwise) base64 of little-endian float32s. */
function embeddings(body: Record<string, any>) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(EMBEDDING).buffer).toString('base64') : EMBEDDING;
  return {
    object: 'list',
    data: inputs.map((_: unknown, index: number) => ({ object: 'embedding', index, embedding })),
    model: String(body.model),
    usage: { prompt_tokens: 5 * inputs.length, total_tokens: 5 * inputs.length },
  };
}

function answer(path: string, body: Record<string, any>): { status: number; json: unknown } {
  if (path === '/v1/chat/completions') {
    const failure = ERRORS[String(body.model)];
    return failure ? { status: failure.status, json: { error: failure.error } } : { status: 200, json: chatCompletion(body) };
  }
  if (path === '/v1/embeddings') return { status: 200, json: embeddings(body) };
  return { status: 404, json: { error: { message: `Invalid URL (POST ${path})`, type: 'invalid_request_error', param: null, code: null } } };
}

/** Starts the server on 127.0.0.1 (a port the OS picks). */
export async function startOpenAiServer(options: OpenAiServerOptions = {}): Promise<OpenAiServer> {
  const requests: OpenAiRequest[] = [];
  const scripted: ScriptedAnswer[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const chats = { inFlight: 0, peak: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        // answered below as an unknown request
      }
      requests.push({ path, headers: req.headers, body });
      const chat = req.method === 'POST' && path === '/v1/chat/completions';
      const next = chat ? (scripted.shift() ?? options.always) : undefined;
      if (chat) {
        chats.inFlight += 1;
        chats.peak = Math.max(chats.peak, chats.inFlight);
        res.once('close', () => (chats.inFlight -= 1));
      }
      const { status, json } = next
        ? { status: next.status ?? 200, json: next.json }
        : req.method === 'POST'
          ? answer(path, body)
          : { status: 405, json: { error: { message: 'POST only' } } };
      // A chat completion asked for as a stream (and not scripted, nor refused) is sent as server-sent events.
      const streamed = chat && !next && status === 200 && body.stream === true;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': streamed ? 'text/event-stream' : 'application/json', 'x-request-id': `req_${requests.length}` });
        res.end(streamed ? chatStream(body) : (next?.body ?? JSON.stringify(json)));
      };
      if (!next?.delayMs) return send();
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, next.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...answers) => scripted.push(...answers),
    chats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
