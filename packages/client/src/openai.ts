import type { ActiveRun, TraceOptions } from './span.js';
import type { Tracer } from './tracer.js';

/** The parts of an OpenAI-style chat completion request the recorder reads. */
export interface ChatCompletionParams {
  model?: string;
  messages?: unknown;
  stream?: boolean | null;
  [key: string]: unknown;
}

/** The parts of an OpenAI-style chat completion (or stream chunk) the recorder reads. */
interface ChatCompletionLike {
  model?: string;
  choices?: { index?: number; message?: unknown; delta?: { content?: string | null; role?: string }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
}

export interface ChatTraceOptions extends Omit<TraceOptions, 'kind' | 'inputs' | 'model'> {
  /** The run's name (default `openai.chat.completions.create`). */
  name?: string;
}

function usageOf(completion: ChatCompletionLike): { promptTokens: number; completionTokens: number; totalTokens?: number } | undefined {
  const usage = completion.usage;
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    ...(typeof usage.total_tokens === 'number' ? { totalTokens: usage.total_tokens } : {}),
  };
}

function record(run: ActiveRun, completion: ChatCompletionLike): void {
  if (typeof completion.model === 'string' && completion.model) run.setModel(completion.model);
  const usage = usageOf(completion);
  if (usage) run.setUsage(usage);
  run.setOutputs({ choices: (completion.choices ?? []).map((c) => ({ message: c.message, finishReason: c.finish_reason ?? null })) });
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  value !== null && typeof value === 'object' && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/** A stream that records the run when it has been read to the end (or fails, or is abandoned). */
function recordStream<S extends AsyncIterable<unknown>>(stream: S, run: ActiveRun): S {
  const text = new Map<number, string[]>();
  const finish = new Map<number, string | null>();
  let model: string | undefined;
  let usage: ReturnType<typeof usageOf>;
  const end = (complete: boolean) => {
    if (model) run.setModel(model);
    if (usage) run.setUsage(usage);
    if (!complete) run.addMetadata({ streamIncomplete: true });
    run.end({
      choices: [...text.keys()]
        .sort((a, b) => a - b)
        .map((i) => ({ message: { role: 'assistant', content: text.get(i)!.join('') }, finishReason: finish.get(i) ?? null })),
    });
  };
  async function* iterate(): AsyncGenerator<unknown> {
    let complete = false;
    try {
      for await (const chunk of stream) {
        const c = chunk as ChatCompletionLike;
        if (typeof c.model === 'string') model = c.model;
        usage = usageOf(c) ?? usage;
        for (const choice of c.choices ?? []) {
          const index = choice.index ?? 0;
          if (!text.has(index)) text.set(index, []);
          if (typeof choice.delta?.content === 'string') text.get(index)!.push(choice.delta.content);
          if (choice.finish_reason) finish.set(index, choice.finish_reason);
        }
        yield chunk;
      }
      complete = true;
    } catch (error) {
      run.fail(error);
      throw error;
    } finally {
      end(complete); // a failed run was ended above: this does nothing then
    }
  }
  return new Proxy(stream, {
    get(target, property) {
      if (property === Symbol.asyncIterator) return () => iterate();
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Records one OpenAI-style chat completion call as an `llm` run: the request as `inputs`, the
 * choices as `outputs`, the model and the token usage (`usage.prompt_tokens`, …). A streamed answer
 * (`stream: true`) is recorded when it has been read (ask for `stream_options: { include_usage: true }`
 * to get its usage).
 *
 * ```ts
 * const answer = await traceChatCompletion(tracer, params, () => openai.chat.completions.create(params));
 * ```
 */
export async function traceChatCompletion<R>(
  tracer: Tracer,
  params: ChatCompletionParams,
  call: () => R | Promise<R>,
  options: ChatTraceOptions = {},
): Promise<R> {
  const { name = 'openai.chat.completions.create', ...rest } = options;
  const run = tracer.start(name, { ...rest, kind: 'llm', inputs: { ...params }, ...(typeof params.model === 'string' ? { model: params.model } : {}) });
  let result: R;
  try {
    result = await call();
  } catch (error) {
    run.fail(error);
    throw error;
  }
  if (params.stream && isAsyncIterable(result)) return recordStream(result, run) as R;
  record(run, result as ChatCompletionLike);
  run.end();
  return result;
}

function bindAll<T extends object>(target: T, replace: (property: string | symbol) => unknown): T {
  return new Proxy(target, {
    get(t, property) {
      const replaced = replace(property);
      if (replaced !== undefined) return replaced;
      const value = Reflect.get(t, property) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/**
 * The same client, with `chat.completions.create` recorded as an `llm` run of `tracer` (see
 * `traceChatCompletion`); everything else passes through. Works with the `openai` package and any
 * client of that shape. Inside `tracer.trace(…)`, the call becomes a child of the current run.
 */
export function wrapOpenAI<C extends object>(client: C, tracer: Tracer, options: ChatTraceOptions = {}): C {
  const chat = (client as { chat?: { completions?: { create?: unknown } } }).chat;
  const completions = chat?.completions;
  if (!chat || !completions || typeof completions.create !== 'function')
    throw new TypeError('wrapOpenAI needs an OpenAI-style client with chat.completions.create');
  const create = (completions.create as (...args: unknown[]) => unknown).bind(completions);
  const tracedCreate = (params: ChatCompletionParams, ...rest: unknown[]) => traceChatCompletion(tracer, params, () => create(params, ...rest), options);
  const tracedCompletions = bindAll(completions, (p) => (p === 'create' ? tracedCreate : undefined));
  const tracedChat = bindAll(chat, (p) => (p === 'completions' ? tracedCompletions : undefined));
  return bindAll(client, (p) => (p === 'chat' ? tracedChat : undefined));
}
