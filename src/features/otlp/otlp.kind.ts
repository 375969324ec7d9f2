import type { RUN_KINDS } from '../../schemas/records.js';
import { LANGFUSE_MODEL, langfuseKind } from './otlp.langfuse.js';

/**
 * What kind of run a span is, and whether it failed, from the conventions LLM instrumentation speaks:
 * OpenTelemetry GenAI, Langfuse, OpenInference, the Vercel AI SDK and OpenLLMetry (exact names in
 * docs/design/otlp-ingestion-research.md). Dependency-free: attributes in, values out.
 */

export type RunKind = (typeof RUN_KINDS)[number];
type Attributes = Record<string, unknown>;

const GEN_AI_OPERATIONS: Record<string, RunKind> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  embeddings: 'embedding',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  plan: 'agent',
  invoke_workflow: 'chain',
  retrieval: 'retriever',
};

// RERANKER, GUARDRAIL, EVALUATOR and PROMPT have no kind of their own: `custom`, with the span's own
// kind kept in metadata like every attribute.
const OPENINFERENCE_KINDS: Record<string, RunKind> = {
  LLM: 'llm',
  CHAIN: 'chain',
  TOOL: 'tool',
  RETRIEVER: 'retriever',
  EMBEDDING: 'embedding',
  AGENT: 'agent',
};

const TRACELOOP_KINDS: Record<string, RunKind> = { workflow: 'chain', task: 'chain', agent: 'agent', tool: 'tool' };

/** The Vercel AI SDK's operation (`ai.operationId`, also the span name): its model calls, tools, embeddings. */
function vercelKind(operation: string): RunKind | null {
  if (!operation.startsWith('ai.')) return null;
  if (operation === 'ai.toolCall') return 'tool';
  // The model call is the embedding; `ai.embed` and `ai.embedMany` wrap it, as `ai.generateText` wraps its calls.
  if (/\.doEmbed$/.test(operation)) return 'embedding';
  if (/\.do(Generate|Stream)$/.test(operation)) return 'llm';
  if (/\.doRerank$/.test(operation) || operation === 'ai.rerank') return 'retriever';
  if (/^ai\.((generate|stream)(Text|Object)|embed(Many)?)$/.test(operation)) return 'chain';
  return null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The run kind of a span: the first convention that names one, else `custom` (the span is kept all the same). */
export function kindOf(spanName: string, attributes: Attributes): RunKind {
  const operation = text(attributes['gen_ai.operation.name']);
  if (operation && GEN_AI_OPERATIONS[operation]) return GEN_AI_OPERATIONS[operation];
  const langfuse = langfuseKind(attributes);
  if (langfuse) return langfuse;
  const openinference = text(attributes['openinference.span.kind']);
  if (openinference) return OPENINFERENCE_KINDS[openinference.toUpperCase()] ?? 'custom';
  const vercel = vercelKind(text(attributes['ai.operationId']) ?? spanName);
  if (vercel) return vercel;
  const traceloop = text(attributes['traceloop.span.kind']);
  if (traceloop && TRACELOOP_KINDS[traceloop]) return TRACELOOP_KINDS[traceloop];
  return 'custom';
}

/** OTLP's status codes. */
export const STATUS_ERROR = 2;

export interface SpanEvent {
  name: string;
  attributes: Attributes;
}

/**
 * `failed` with its error when the span's status is ERROR: the status message, else the `exception`
 * event's type and message, else the `error.type` attribute; `succeeded` otherwise (OTLP spans arrive
 * ended).
 */
export function outcomeOf(
  status: { code: number; message: string } | null,
  events: SpanEvent[],
  attributes: Attributes,
): { status: 'succeeded' } | { status: 'failed'; error: string } {
  if (status?.code !== STATUS_ERROR) return { status: 'succeeded' };
  if (text(status.message)) return { status: 'failed', error: status.message };
  const exception = events.find((event) => event.name === 'exception');
  if (exception) {
    const type = text(exception.attributes['exception.type']);
    const message = text(exception.attributes['exception.message']);
    if (type || message) return { status: 'failed', error: [type, message].filter((part) => part !== null).join(': ') };
  }
  return { status: 'failed', error: text(attributes['error.type']) ?? 'The span ended with status ERROR.' };
}

const MODEL_KEYS = [
  'gen_ai.response.model',
  'gen_ai.request.model',
  'llm.model_name',
  'llm.response.model_name',
  'llm.request.model_name',
  'ai.response.model',
  'ai.model.id',
  'embedding.model_name',
  LANGFUSE_MODEL,
];

/** The model a span called: the response's model before the request's, in every convention. */
export function modelOf(attributes: Attributes): string | null {
  for (const key of MODEL_KEYS) {
    const model = text(attributes[key]);
    if (model) return model.slice(0, 256);
  }
  return null;
}

const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system', 'ai.model.provider'];

/** The model's provider (`openai`, `anthropic`, …): GenAI's current and older names, OpenInference's, the Vercel AI SDK's. */
export function providerOf(attributes: Attributes): string | null {
  for (const key of PROVIDER_KEYS) {
    const provider = text(attributes[key]);
    if (provider) return provider.slice(0, 256);
  }
  return null;
}
