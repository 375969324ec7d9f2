import { providerName } from '../models/index.js';
import { sessionOf, tagsOf, userOf } from './otlp.context.js';
import type { OtlpSpan } from './otlp.decode.js';
import { attributesOf, hexId, jsonObject, nanos, type Int64 } from './otlp.values.js';
import { kindOf, modelOf, outcomeOf, providerOf, type RunKind } from './otlp.kind.js';
import { eventMessagesOf, type EventLike } from './otlp.events.js';
import { inputMessagesOf, outputMessagesOf } from './otlp.messages.js';
import { inheritedMetadata, metadataOf, resourceMetadata, type InheritedMetadata, type ResourceMetadata } from './otlp.metadata.js';
import { usageOf, type SpanUsage } from './otlp.usage.js';
import {
  LANGFUSE_IO_KEYS,
  LANGFUSE_MODEL_PARAMETERS,
  langfuseCost,
  langfuseOutcome,
  langfuseIo,
  langfuseModelParameters,
  langfuseUsage,
} from './otlp.langfuse.js';

/**
 * One span as a run: identity and times exactly, kind, outcome, model, usage, session, user, tags, and
 * every other attribute as metadata. Where it cannot be one (no valid ids, no start time), the reason,
 * counted in the answer's `partialSuccess`. A model call's inputs and outputs are `{ messages }` in the
 * one message shape (otlp.messages.ts); other spans' are their `input.value` / `output.value` (JSON
 * parsed when so typed), a tool call's arguments and result (GenAI `gen_ai.tool.call.*`, the Vercel AI
 * SDK's `ai.toolCall.*`), the values the Vercel AI SDK embeds, or OpenLLMetry's entity input and output.
 */
export interface MappedSpan {
  id: string;
  traceId: string;
  parentRunId: string | null;
  name: string;
  kind: RunKind;
  status: 'succeeded' | 'failed';
  error: string | null;
  /** Milliseconds since the epoch, and the nanoseconds within the millisecond (kept exactly). */
  startTime: number;
  startNanos: number;
  endTime: number | null;
  endNanos: number | null;
  model: string | null;
  provider: string | null;
  usage: SpanUsage | null;
  /** What the span says it cost, in USD (Langfuse's cost details); null: priced from its model and usage, if it can be. */
  cost: number | null;
  sessionId: string | null;
  userId: string | null;
  tags: string[];
  inputs: unknown;
  outputs: unknown;
  attributes: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** A retrieved document's field (OpenInference): they become the run's outputs. */
const DOCUMENT_FIELD = /^retrieval\.documents\.(\d{1,6})\.document\.(id|content|score|metadata)$/;

/** Keys whose value becomes a field of the run (inputs and outputs among them): not repeated in its metadata. */
const FIELD_KEYS = new Set([
  'session.id',
  'user.id',
  'tag.tags',
  'langfuse.session.id',
  'langfuse.user.id',
  'langfuse.trace.tags',
  'input.value',
  'input.mime_type',
  'output.value',
  'output.mime_type',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'ai.prompt',
  'ai.prompt.messages',
  'ai.response.text',
  'ai.response.toolCalls',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'ai.toolCall.args',
  'ai.toolCall.result',
  'ai.value',
  'ai.values',
  'traceloop.entity.input',
  'traceloop.entity.output',
  ...LANGFUSE_IO_KEYS,
]);
const FIELD_PREFIXES = ['llm.input_messages.', 'llm.output_messages.', 'gen_ai.prompt.', 'gen_ai.completion.'];
const isField = (key: string) =>
  FIELD_KEYS.has(key) || FIELD_PREFIXES.some((prefix) => key.startsWith(prefix)) || (key.startsWith('retrieval.documents.') && DOCUMENT_FIELD.test(key));

/** A value sent as text: parsed when it says it is JSON (or is plainly JSON text), else the text. */
function valueOf(value: unknown, mimeType: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  if (mimeType === 'application/json' || /^\s*[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/** The Vercel AI SDK writes these values with JSON.stringify (a string value too). */
const stringified = (value: unknown) => valueOf(value, 'application/json');

const TOOL_CALL = { input: ['gen_ai.tool.call.arguments', 'ai.toolCall.args'], output: ['gen_ai.tool.call.result', 'ai.toolCall.result'] };

function ioOf(attributes: Record<string, unknown>, events: EventLike[], side: 'input' | 'output', kind: RunKind): unknown {
  // What a Langfuse SDK was given as the observation's input or output: set on purpose, so first.
  const langfuse = langfuseIo(attributes, side, kind);
  if (langfuse !== undefined) return langfuse;
  if (side === 'output') {
    const documents = retrievedDocuments(attributes);
    if (documents !== null) return { documents };
  }
  if (kind === 'embedding' && side === 'input') {
    const texts = embeddingTexts(attributes);
    if (texts !== null) return texts;
  }
  const messages = (side === 'input' ? inputMessagesOf(attributes) : outputMessagesOf(attributes)) ?? eventMessagesOf(events)[side];
  if (messages) return { messages };
  const [valueKey, mimeKey, traceloopKey] = SIDE_KEYS[side];
  if (attributes[valueKey] !== undefined) return valueOf(attributes[valueKey], attributes[mimeKey]);
  const [genAiTool, vercelTool] = TOOL_CALL[side];
  if (attributes[genAiTool!] !== undefined) return valueOf(attributes[genAiTool!], undefined);
  if (attributes[vercelTool!] !== undefined) return stringified(attributes[vercelTool!]);
  if (side === 'input' && attributes['ai.value'] !== undefined) return stringified(attributes['ai.value']);
  if (side === 'input' && Array.isArray(attributes['ai.values'])) return attributes['ai.values'].map(stringified);
  return valueOf(attributes[traceloopKey], undefined);
}

/** Each side's keys as constants: a key built per span is hashed per lookup in attributes that are dictionaries. */
const SIDE_KEYS = {
  input: ['input.value', 'input.mime_type', 'traceloop.entity.input'],
  output: ['output.value', 'output.mime_type', 'traceloop.entity.output'],
} as const;

/**
 * What a retriever found: OpenInference's `retrieval.documents.<i>.document.{id,content,score,metadata}`, in
 * order, each with the fields the span gives (metadata parsed when it is JSON text); null when it names none.
 */
function retrievedDocuments(attributes: Record<string, unknown>): Record<string, unknown>[] | null {
  let documents: Map<number, Record<string, unknown>> | null = null;
  for (const key in attributes) {
    if (!key.startsWith('retrieval.documents.')) continue;
    const match = DOCUMENT_FIELD.exec(key);
    if (!match) continue;
    documents ??= new Map();
    const index = Number(match[1]);
    let document = documents.get(index);
    if (!document) documents.set(index, (document = {}));
    const field = match[2]!;
    document[field] = field === 'metadata' ? valueOf(attributes[key], undefined) : attributes[key];
  }
  if (documents === null) return null;
  return [...documents.entries()].sort((a, b) => a[0] - b[0]).map(([, document]) => document);
}

const EMBEDDING_TEXT = /^(?:embedding\.embeddings|gen_ai\.prompt)\.(\d{1,6})\.(?:embedding\.text|content)$/;

/**
 * What an embedding run embedded: its texts, not the request they were sent in. OpenInference's
 * `embedding.embeddings.<i>.embedding.text` and OpenLLMetry's `gen_ai.prompt.<i>.content`, in order; else
 * the `input` of an OpenAI-style request recorded as `input.value` (`{"input": [...], "model": …}`). One
 * text as itself, several as a list; null when the span names none.
 */
function embeddingTexts(attributes: Record<string, unknown>): unknown {
  const texts: [number, string][] = [];
  for (const key in attributes) {
    const match = EMBEDDING_TEXT.exec(key);
    const text = attributes[key];
    if (match && typeof text === 'string') texts.push([Number(match[1]), text]);
  }
  if (texts.length > 0) {
    texts.sort((a, b) => a[0] - b[0]);
    return texts.length === 1 ? texts[0]![1] : texts.map(([, text]) => text);
  }
  const request = valueOf(attributes['input.value'], attributes['input.mime_type']);
  const input = typeof request === 'object' && request !== null && !Array.isArray(request) ? (request as Record<string, unknown>).input : undefined;
  return typeof input === 'string' || (Array.isArray(input) && input.every((item) => typeof item === 'string')) ? input : null;
}

const MAX_NAME_LENGTH = 256;

/**
 * A provider by the GenAI registry's name (`openai.chat` → `openai`, `mistralai` → `mistral_ai`): one name
 * whichever client sent it; the attribute as sent stays in the run's metadata.
 */
const registryName = (provider: string | null) => (provider === null ? null : providerName(provider).slice(0, 256));

/** The provider LangChain names in its run metadata (`ls_provider`), which OpenInference's `metadata` carries. */
function metadataProvider(metadata: Record<string, unknown> | null): string | null {
  const provider = metadata?.ls_provider;
  return typeof provider === 'string' && provider.trim() !== '' ? provider.trim().slice(0, 256) : null;
}

/** A time as milliseconds and the nanoseconds within them, exactly; null when absent or zero (OTLP's "unset"), or past what a date holds. */
function split(value: Int64 | null): [number, number] | null {
  if (value !== null && typeof value === 'object') {
    // Decoded protobuf (unsigned { low, high }), without BigInt: 2^32 = 4294 × 10^6 + 967296, so
    // high × 2^32 + low = high × 4294 × 10^6 + rest, and rest (< 2^53) and every step stay exact.
    const high = value.high >>> 0;
    const low = value.low >>> 0;
    if (high === 0 && low === 0) return null;
    const rest = high * 967_296 + low;
    const nanosWithin = rest % 1_000_000;
    return [high * 4294 + (rest - nanosWithin) / 1_000_000, nanosWithin];
  }
  const time = nanos(value);
  if (time === null) return null;
  const ms = time / 1_000_000n;
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? null : [Number(ms), Number(time % 1_000_000n)];
}

/** A resource's attributes prepared once for all its spans (the keys that become fields of a run left out of metadata). */
export const resourceOf = (attributes: Record<string, unknown>): ResourceMetadata => resourceMetadata(attributes, isField);

/** The same, its keys sorted out a few thousand at a time, `breathe` called between (a resource may have 100,000). */
export async function resourceOfInTurns(attributes: Record<string, unknown>, breathe: () => Promise<void>): Promise<ResourceMetadata> {
  const all = Object.keys(attributes);
  const keys: string[] = [];
  for (let i = 0; i < all.length; i++) {
    if (!isField(all[i]!)) keys.push(all[i]!);
    if (i % 4096 === 4095) await breathe();
  }
  return resourceMetadata(attributes, isField, keys);
}

/** What the spans of one scope inherit: their resource's attributes, and the scope's name and version. */
export function inheritedOf(resource: ResourceMetadata, scope: { name: string; version: string } | null | undefined): InheritedMetadata {
  return inheritedMetadata(resource, scope?.name ? { 'otel.scope.name': scope.name, 'otel.scope.version': scope.version || undefined } : {});
}

/** One span as a run, `inherited` from its resource and scope (prepared once for all their spans: `resourceOf`, `inheritedOf`). */
export function mapSpan(span: OtlpSpan, inherited: InheritedMetadata): MappedSpan | { rejected: string } {
  const resource = inherited.resource.attributes;
  const id = hexId(span.spanId, 8);
  const traceId = hexId(span.traceId, 16);
  if (!id || !traceId) return { rejected: 'A span has no valid trace id (16 bytes) or span id (8 bytes).' };
  const start = split(span.startTimeUnixNano);
  if (!start) return { rejected: `Span ${id} has no start time.` };
  const end = split(span.endTimeUnixNano);
  const attributes = attributesOf(span);
  const events = (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event) }));
  const name = (span.name || '(unnamed span)').slice(0, MAX_NAME_LENGTH);
  // Langfuse's level, where the span has one, decides over its status (as in Langfuse).
  const outcome = langfuseOutcome(attributes, span.status?.message || null) ?? outcomeOf(span.status, events, attributes);
  const kind = kindOf(name, attributes);
  // Langfuse's SDKs send model parameters as JSON text, OpenInference its `metadata`: kept in metadata as the objects they are.
  const parameters = langfuseModelParameters(attributes);
  if (parameters) attributes[LANGFUSE_MODEL_PARAMETERS] = parameters;
  const metadataObject = typeof attributes.metadata === 'string' ? jsonObject(attributes.metadata) : null;
  if (metadataObject) attributes.metadata = metadataObject;
  return {
    id,
    traceId,
    parentRunId: hexId(span.parentSpanId, 8),
    name,
    kind,
    status: outcome.status,
    error: outcome.status === 'failed' ? outcome.error : null,
    startTime: start[0],
    startNanos: start[1],
    // An end before the start (clock skew between hosts) is read as the start: latency 0, never negative.
    endTime: end ? Math.max(end[0], start[0]) : null,
    endNanos: end ? (end[0] < start[0] ? start[1] : end[1]) : null,
    model: modelOf(attributes),
    provider: registryName(providerOf(attributes) ?? metadataProvider(metadataObject)),
    usage: usageOf(name, attributes) ?? langfuseUsage(attributes),
    cost: langfuseCost(attributes),
    sessionId: sessionOf(attributes, resource, metadataObject),
    userId: userOf(attributes, resource, metadataObject),
    tags: tagsOf(attributes),
    inputs: ioOf(attributes, events, 'input', kind),
    outputs: ioOf(attributes, events, 'output', kind),
    attributes,
    metadata: metadataOf(attributes, inherited),
  };
}
