/**
 * The conversation in a run's inputs or outputs, read from every shape a model call is recorded in: the
 * OpenTelemetry GenAI shape the OTLP mapping stores (`{ messages: [{ role, parts }] }`), OpenAI-style
 * messages (`content` as text or parts, `tool_calls`) and chat completions (`{ choices: [{ message }] }`,
 * as the SDK's `wrapOpenAI` records them), Anthropic's content blocks, a bare `prompt` or `text`, and
 * plain strings. Dependency-free: the server's previews (traces.preview.ts) and the dashboard's
 * conversation view read the same messages.
 */
export type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string | null; name: string; arguments: unknown }
  | { type: 'tool_result'; id: string | null; response: unknown }
  | { type: 'image'; uri: string };
export interface Message {
  role: string;
  parts: Part[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A value as text: itself when a string, else indented JSON. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

function partsOf(value: unknown): Part[] {
  if (typeof value === 'string') return [{ type: 'text', content: value }];
  if (!Array.isArray(value)) return value === undefined || value === null ? [] : [{ type: 'text', content: str(value) }];
  return value.flatMap((p): Part[] => {
    if (typeof p === 'string') return [{ type: 'text', content: p }];
    if (!isObject(p)) return [];
    const type = p.type;
    if (type === 'text' || type === 'input_text' || type === 'output_text') return [{ type: 'text', content: str(p.content ?? p.text ?? '') }];
    if (type === 'reasoning' || type === 'thinking') return [{ type: 'reasoning', content: str(p.content ?? p.thinking ?? p.text ?? '') }];
    if (type === 'tool_call' || type === 'tool_use' || type === 'function_call')
      return [{ type: 'tool_call', id: (p.id as string) ?? null, name: str(p.name ?? ''), arguments: p.arguments ?? p.input ?? null }];
    if (type === 'tool_call_response' || type === 'tool_result')
      return [{ type: 'tool_result', id: (p.id as string) ?? (p.tool_use_id as string) ?? null, response: p.response ?? p.content ?? null }];
    const uri = p.uri ?? p.url ?? (isObject(p.image_url) ? p.image_url.url : p.image_url);
    if (typeof uri === 'string' && (type === 'uri' || type === 'image_url' || type === 'image' || p.modality === 'image')) return [{ type: 'image', uri }];
    return [{ type: 'text', content: str(p) }];
  });
}

function messageOf(m: unknown): Message | null {
  if (!isObject(m) || typeof m.role !== 'string') return null;
  const parts = Array.isArray(m.parts) ? partsOf(m.parts) : partsOf(m.content);
  if (Array.isArray(m.tool_calls))
    for (const call of m.tool_calls.filter(isObject)) {
      const fn = isObject(call.function) ? call.function : call;
      parts.push({ type: 'tool_call', id: (call.id as string) ?? null, name: str(fn.name ?? ''), arguments: fn.arguments ?? null });
    }
  if (m.role === 'tool' && typeof m.tool_call_id === 'string' && parts.length === 1 && parts[0]!.type === 'text')
    return { role: 'tool', parts: [{ type: 'tool_result', id: m.tool_call_id, response: parts[0]!.content }] };
  return { role: m.role, parts };
}

/** The conversation in a run's inputs or outputs, or null when the value is not one. */
export function conversationOf(value: unknown, side: 'input' | 'output'): Message[] | null {
  if (typeof value === 'string') return [{ role: side === 'input' ? 'user' : 'assistant', parts: [{ type: 'text', content: value }] }];
  if (Array.isArray(value)) return messagesOf(value);
  if (!isObject(value)) return null;
  const list = Array.isArray(value.messages)
    ? value.messages
    : Array.isArray(value.choices)
      ? value.choices.map((c) => (isObject(c) ? c.message : null))
      : // One message on its own: an Anthropic response (`{ role: 'assistant', content: [blocks] }`).
        typeof value.role === 'string' && (Array.isArray(value.content) || Array.isArray(value.parts))
        ? [value]
        : null;
  if (list) return messagesOf(list);
  for (const key of side === 'input' ? ['prompt', 'input', 'question', 'query'] : ['content', 'text', 'output', 'answer', 'completion']) {
    if (typeof value[key] === 'string') return [{ role: side === 'input' ? 'user' : 'assistant', parts: [{ type: 'text', content: value[key] as string }] }];
  }
  return null;
}

function messagesOf(list: unknown[]): Message[] | null {
  if (list.length === 0) return null;
  const messages = list.map(messageOf);
  return messages.every((m) => m !== null) ? (messages as Message[]) : null;
}

/** A message's text on one line's worth: its text parts, a tool call as `name(…)`. */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => (part.type === 'text' ? part.content : part.type === 'tool_call' ? `${part.name}(…)` : ''))
    .filter((text) => text !== '')
    .join(' ');
}

/** The message a list shows of a conversation: the last user message going in, the assistant's answer coming out. */
export function shownMessage(messages: Message[], side: 'input' | 'output'): Message | undefined {
  return side === 'input' ? (messages.findLast((m) => m.role === 'user') ?? messages.at(-1)) : (messages.find((m) => m.role === 'assistant') ?? messages[0]);
}

/** A document a retriever found, in the fields any of the common shapes gives. */
export interface RetrievedDocument {
  id: string | null;
  content: string | null;
  score: number | null;
  metadata: unknown;
}

const CONTENT_KEYS = ['content', 'pageContent', 'page_content', 'text'] as const;

function documentOf(value: unknown): RetrievedDocument | null {
  if (typeof value === 'string') return { id: null, content: value, score: null, metadata: null };
  if (!isObject(value)) return null;
  const key = CONTENT_KEYS.find((k) => typeof value[k] === 'string');
  if (key === undefined) return null;
  const id = value.id ?? null;
  const score = value.score ?? null;
  return {
    id: typeof id === 'string' || typeof id === 'number' ? String(id) : null,
    content: value[key] as string,
    score: typeof score === 'number' ? score : null,
    metadata: value.metadata ?? null,
  };
}

/**
 * The documents in a retriever's outputs: `{ documents: [...] }` (what OTLP ingestion makes of
 * OpenInference's `retrieval.documents`, and LangChain's own output), each with its `content` (or
 * `pageContent`, `page_content`, `text`) and any `id`, `score` and `metadata`; for a run of kind
 * `retriever`, a bare list of such documents or of strings too. Null when the value is not one.
 */
export function documentsOf(value: unknown, retriever: boolean): RetrievedDocument[] | null {
  const list = isObject(value) && Array.isArray(value.documents) ? value.documents : retriever && Array.isArray(value) ? value : null;
  if (list === null || list.length === 0) return null;
  const documents = list.map(documentOf);
  return documents.every((d) => d !== null) ? (documents as RetrievedDocument[]) : null;
}

/** What a retriever was asked: its input when a string, else the one string of `query`, `question` or `input`. */
export function queryOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (!isObject(value)) return null;
  for (const key of ['query', 'question', 'input']) if (typeof value[key] === 'string') return value[key] as string;
  return null;
}
