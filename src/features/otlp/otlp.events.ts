import type { Message, Part } from './otlp.messages.js';
import { fromJsonText } from './otlp.values.js';

/**
 * A model call's conversation carried in span events rather than attributes: the deprecated GenAI
 * events (`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
 * `gen_ai.tool.message`, `gen_ai.choice`; as span events their body is JSON text in
 * `gen_ai.event.content`, or the fields are the event's attributes), and the older
 * `gen_ai.content.prompt` / `gen_ai.content.completion` events (`gen_ai.prompt` / `gen_ai.completion`).
 * In the one message shape of otlp.messages.ts. Dependency-free.
 */

type Attributes = Record<string, unknown>;
export interface EventLike {
  name: string;
  attributes: Attributes;
}

const ROLE_EVENTS: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

const isObject = (value: unknown): value is Attributes => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON text parsed; any other value, or text that is not JSON, as it is. */
const parsed = (value: unknown): unknown => fromJsonText(value, value);

/** The event's body: the JSON of `gen_ai.event.content`, else its attributes. */
const bodyOf = (event: EventLike): Attributes => {
  const content = parsed(event.attributes['gen_ai.event.content']);
  return isObject(content) ? content : event.attributes;
};

const textPart = (content: unknown): Part => ({ type: 'text', content: typeof content === 'string' ? content : JSON.stringify(content) });

/** An OpenAI-style message (`{role, content, tool_calls, id}`) in the one shape. */
function messageOf(body: Attributes, role: string): Message {
  const parts: Part[] = [];
  const content = body.content;
  if (role === 'tool' && content !== undefined && content !== null)
    parts.push({ type: 'tool_call_response', id: body.id ?? body.tool_call_id ?? null, response: content });
  else if (typeof content === 'string') parts.push(textPart(content));
  else if (Array.isArray(content)) for (const item of content) parts.push(isObject(item) && item.type === 'text' ? textPart(item.text) : textPart(item));
  else if (content !== undefined && content !== null) parts.push(textPart(content));
  const calls = parsed(body.tool_calls);
  if (Array.isArray(calls)) {
    for (const call of calls) {
      if (!isObject(call)) continue;
      const fn = isObject(call.function) ? call.function : {};
      parts.push({ type: 'tool_call', id: call.id ?? null, name: fn.name ?? call.name ?? null, arguments: parsed(fn.arguments ?? call.arguments ?? null) });
    }
  }
  return { role, parts };
}

/** A list of messages as JSON text (`[{role, content}]`), or plain text as one message of `role`. */
function listOf(value: unknown, role: string): Message[] | null {
  const list = parsed(value);
  if (Array.isArray(list)) return list.filter(isObject).map((m) => messageOf(m, typeof m.role === 'string' ? m.role : role));
  if (typeof list === 'string' && list !== '') return [{ role, parts: [textPart(list)] }];
  return null;
}

/** The conversation the span's events carry: input and output messages, each null when they carry none. */
export function eventMessagesOf(events: EventLike[]): { input: Message[] | null; output: Message[] | null } {
  const input: Message[] = [];
  const output: Message[] = [];
  for (const event of events) {
    const role = ROLE_EVENTS[event.name];
    if (role) {
      const body = bodyOf(event);
      input.push(messageOf(body, typeof body.role === 'string' ? body.role : role));
    } else if (event.name === 'gen_ai.choice') {
      const body = bodyOf(event);
      const message = isObject(parsed(body.message)) ? (parsed(body.message) as Attributes) : body;
      const choice = messageOf(
        { ...message, tool_calls: message.tool_calls ?? body.tool_calls },
        typeof message.role === 'string' ? message.role : 'assistant',
      );
      if (typeof body.finish_reason === 'string') choice.finish_reason = body.finish_reason;
      output.push(choice);
    } else if (event.name === 'gen_ai.content.prompt') {
      input.push(...(listOf(event.attributes['gen_ai.prompt'], 'user') ?? []));
    } else if (event.name === 'gen_ai.content.completion') {
      output.push(...(listOf(event.attributes['gen_ai.completion'], 'assistant') ?? []));
    }
  }
  return { input: input.length > 0 ? input : null, output: output.length > 0 ? output : null };
}
