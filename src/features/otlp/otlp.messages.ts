import { fromJsonText } from './otlp.values.js';
/**
 * A span's model conversation in one shape, whichever convention carried it: the OpenTelemetry GenAI
 * message shape (`{ role, parts: [{ type: 'text', content } | { type: 'tool_call', id, name, arguments } |
 * { type: 'tool_call_response', id, response } | { type: 'reasoning', content } | …] }`), which the
 * dashboard renders. Sources, in order: GenAI `gen_ai.input.messages` / `gen_ai.output.messages` (and
 * `gen_ai.system_instructions`), OpenInference `llm.input_messages.N.*` / `llm.output_messages.N.*`, the
 * Vercel AI SDK's `ai.prompt.messages` (or an outer span's `ai.prompt`) / `ai.response.*`, and the older indexed `gen_ai.prompt.N.*` /
 * `gen_ai.completion.N.*`. Dependency-free.
 */

type Attributes = Record<string, unknown>;
export type Part = Record<string, unknown> & { type: string };
export interface Message {
  role: string;
  parts: Part[];
  name?: string;
  finish_reason?: string;
}

/** A structured attribute, or one sent as JSON text (Python's instrumentation does): the value, or undefined. */
const structured = (value: unknown): unknown => fromJsonText(value, undefined);

/** Tool arguments: JSON text parsed, any other text kept as it is. */
const args = (value: unknown): unknown => (value === undefined ? null : (structured(value) ?? value));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (content: unknown): Part => ({ type: 'text', content: typeof content === 'string' ? content : JSON.stringify(content) });

/** GenAI messages as sent (they are the shape already); anything that is not a list of messages is null. */
function genAiMessages(value: unknown): Message[] | null {
  const list = structured(value);
  if (!Array.isArray(list) || !list.every((m) => isObject(m) && typeof m.role === 'string')) return null;
  // A message with its parts is the shape already, kept as it came (no copy of every message of every span).
  return list.map((m) =>
    Array.isArray(m.parts) ? (m as unknown as Message) : { ...(m as object), role: m.role as string, parts: m.content !== undefined ? [text(m.content)] : [] },
  );
}

/** Indexed attributes (`prefix.0.role`, `prefix.0.content`, `prefix.1…`) grouped per index, with the rest of each key. */
function indexed(attributes: Attributes, prefix: string): Map<number, Attributes> {
  const byIndex = new Map<number, Attributes>();
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(prefix)) continue;
    const match = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length));
    if (!match) continue;
    const index = Number(match[1]);
    const entry = byIndex.get(index) ?? {};
    entry[match[2]!] = value;
    byIndex.set(index, entry);
  }
  return new Map([...byIndex].sort(([a], [b]) => a - b));
}

/** OpenInference's flattened messages (`llm.input_messages.N.message.*`). */
function openInferenceMessages(attributes: Attributes, prefix: string): Message[] | null {
  const messages = [...indexed(attributes, prefix).values()].map((fields): Message => {
    const parts: Part[] = [];
    if (fields['message.content'] !== undefined) parts.push(text(fields['message.content']));
    for (const content of indexed(fields, 'message.contents.').values()) {
      if (content['message_content.text'] !== undefined) parts.push(text(content['message_content.text']));
      else if (content['message_content.image.image.url'] !== undefined)
        parts.push({ type: 'uri', modality: 'image', uri: content['message_content.image.image.url'] });
    }
    for (const call of indexed(fields, 'message.tool_calls.').values()) {
      parts.push({
        type: 'tool_call',
        id: call['tool_call.id'] ?? null,
        name: call['tool_call.function.name'] ?? null,
        arguments: args(call['tool_call.function.arguments']),
      });
    }
    if (fields['message.tool_call_id'] !== undefined && parts.length > 0 && parts[0]!.type === 'text') {
      parts[0] = { type: 'tool_call_response', id: fields['message.tool_call_id'], response: parts[0]!.content };
    }
    // A message that only calls tools has no text, though LangChain's instrumentation records its content as "".
    const said = parts.some((part) => part.type === 'tool_call') ? parts.filter((part) => part.type !== 'text' || part.content !== '') : parts;
    const message: Message = { role: String(fields['message.role'] ?? 'user'), parts: said };
    if (typeof fields['message.name'] === 'string') message.name = fields['message.name'];
    return message;
  });
  return messages.length > 0 ? messages : null;
}

/** The Vercel AI SDK's messages (`ai.prompt.messages`): string content, or text, tool-call, tool-result and reasoning parts. */
function vercelMessages(value: unknown): Message[] | null {
  const list = structured(value);
  if (!Array.isArray(list)) return null;
  return list.filter(isObject).map((m) => {
    const content = m.content;
    const parts: Part[] = !Array.isArray(content)
      ? [text(content)]
      : content.filter(isObject).map((part): Part => {
          switch (part.type) {
            case 'text':
              return text(part.text);
            case 'reasoning':
              return { type: 'reasoning', content: part.text ?? '' };
            case 'tool-call':
              return { type: 'tool_call', id: part.toolCallId ?? null, name: part.toolName ?? null, arguments: part.input ?? part.args ?? null };
            case 'tool-result':
              return {
                type: 'tool_call_response',
                id: part.toolCallId ?? null,
                response: isObject(part.output) && 'value' in part.output ? part.output.value : (part.output ?? part.result ?? null),
              };
            default:
              return { ...part, type: String(part.type ?? 'unknown') };
          }
        });
    return { role: String(m.role ?? 'user'), parts };
  });
}

/**
 * The Vercel AI SDK's outer spans (`ai.generateText`, `ai.streamObject`, …) carry the call's prompt as
 * given (`ai.prompt`: `{ system?, prompt?, messages? }`, the prompt a text or messages): as messages.
 */
function vercelPrompt(value: unknown): Message[] | null {
  const prompt = structured(value);
  if (!isObject(prompt)) return null;
  const messages: Message[] = [];
  if (typeof prompt.system === 'string') messages.push({ role: 'system', parts: [text(prompt.system)] });
  if (typeof prompt.prompt === 'string') messages.push({ role: 'user', parts: [text(prompt.prompt)] });
  else messages.push(...(vercelMessages(prompt.prompt) ?? []));
  messages.push(...(vercelMessages(prompt.messages) ?? []));
  return messages.length > 0 ? messages : null;
}

/** The older indexed GenAI attributes (`gen_ai.prompt.N.role`, `.content`, `gen_ai.completion.N.tool_calls.J.*`). */
function indexedGenAi(attributes: Attributes, prefix: string): Message[] | null {
  const messages = [...indexed(attributes, prefix).values()].map((fields): Message => {
    const parts: Part[] = fields.content !== undefined ? [text(fields.content)] : [];
    for (const call of indexed(fields, 'tool_calls.').values())
      parts.push({ type: 'tool_call', id: call.id ?? null, name: call.name ?? null, arguments: args(call.arguments) });
    const message: Message = { role: String(fields.role ?? 'user'), parts };
    if (typeof fields.finish_reason === 'string') message.finish_reason = fields.finish_reason;
    return message;
  });
  return messages.length > 0 ? messages : null;
}

/** OpenAI-style chat content: a text, or parts (`text`, `image_url`, …). */
function contentParts(content: unknown): Part[] {
  if (content === undefined || content === null) return [];
  if (!Array.isArray(content)) return [text(content)];
  return content.map((part): Part => {
    if (!isObject(part)) return text(part);
    if (part.type === 'text') return text(part.text);
    if (part.type === 'image_url' && isObject(part.image_url)) return { type: 'uri', modality: 'image', uri: part.image_url.url ?? null };
    return { ...part, type: String(part.type ?? 'unknown') };
  });
}

/** An OpenAI-style chat message (`{ role, content, tool_calls?, tool_call_id? }`) in the one message shape. */
function chatMessage(m: Record<string, unknown>): Message {
  const parts = contentParts(m.content);
  if (Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls.filter(isObject)) {
      const fn = isObject(call.function) ? call.function : {};
      parts.push({ type: 'tool_call', id: call.id ?? null, name: fn.name ?? null, arguments: args(fn.arguments) });
    }
  }
  if (m.role === 'tool' && typeof m.tool_call_id === 'string')
    return { role: 'tool', parts: [{ type: 'tool_call_response', id: m.tool_call_id, response: args(m.content) }] };
  return { role: String(m.role), parts };
}

const isChatMessage = (value: unknown): value is Record<string, unknown> => isObject(value) && typeof value.role === 'string';

/**
 * A generation's input or output as messages when it is chat messages (a list of them, `{ messages }`,
 * or one message: what Langfuse's OpenAI and LangChain integrations send); null otherwise.
 */
export function chatMessages(value: unknown): Message[] | null {
  const list = isObject(value) && Array.isArray(value.messages) ? value.messages : Array.isArray(value) ? value : isChatMessage(value) ? [value] : null;
  if (!list || list.length === 0 || !list.every(isChatMessage)) return null;
  return list.map(chatMessage);
}

/** The messages sent to the model, with the system instructions first; null when the span carries none. */
export function inputMessagesOf(attributes: Attributes): Message[] | null {
  const genAi = genAiMessages(attributes['gen_ai.input.messages']);
  if (genAi) {
    const system = structured(attributes['gen_ai.system_instructions']);
    return Array.isArray(system) ? [{ role: 'system', parts: system as Part[] }, ...genAi] : genAi;
  }
  return (
    openInferenceMessages(attributes, 'llm.input_messages.') ??
    vercelMessages(attributes['ai.prompt.messages']) ??
    vercelPrompt(attributes['ai.prompt']) ??
    indexedGenAi(attributes, 'gen_ai.prompt.')
  );
}

/** The messages the model answered with; null when the span carries none. */
export function outputMessagesOf(attributes: Attributes): Message[] | null {
  const genAi = genAiMessages(attributes['gen_ai.output.messages']);
  if (genAi) return genAi;
  const openInference = openInferenceMessages(attributes, 'llm.output_messages.');
  if (openInference) {
    // OpenInference records the first choice only, and its finish reason beside it.
    const finish = attributes['llm.finish_reason'];
    if (openInference.length === 1 && typeof finish === 'string' && finish !== '') openInference[0]!.finish_reason = finish;
    return openInference;
  }
  if (attributes['ai.response.text'] !== undefined || attributes['ai.response.toolCalls'] !== undefined) {
    const calls = structured(attributes['ai.response.toolCalls']);
    const parts: Part[] =
      typeof attributes['ai.response.text'] === 'string' && attributes['ai.response.text'] !== '' ? [text(attributes['ai.response.text'])] : [];
    for (const call of Array.isArray(calls) ? calls.filter(isObject) : []) {
      parts.push({ type: 'tool_call', id: call.toolCallId ?? null, name: call.toolName ?? null, arguments: args(call.input ?? call.args) });
    }
    const message: Message = { role: 'assistant', parts };
    if (typeof attributes['ai.response.finishReason'] === 'string') message.finish_reason = attributes['ai.response.finishReason'];
    return [message];
  }
  return indexedGenAi(attributes, 'gen_ai.completion.');
}
