import { useState } from 'react';
import { Markdown } from './markdown.js';
import { JsonView } from './ui.js';

/**
 * A model call's inputs or outputs as the conversation they are: role by role, text as Markdown, tool
 * calls with their arguments and tool results, reasoning folded, images by reference. Reads the
 * OpenTelemetry GenAI shape the OTLP mapping stores (`{ messages: [{ role, parts }] }`), OpenAI-style
 * messages (`content` as text or parts, `tool_calls`), a bare `prompt` or `text`, and plain strings.
 * Anything else is shown as JSON; the raw JSON is always one click away.
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
const str = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

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
  if (!isObject(value)) return null;
  const list = Array.isArray(value.messages)
    ? value.messages
    : Array.isArray(value.choices)
      ? value.choices.map((c) => (isObject(c) ? c.message : null))
      : null;
  if (list) {
    const messages = list.map(messageOf);
    return messages.every((m) => m !== null) ? (messages as Message[]) : null;
  }
  for (const key of side === 'input' ? ['prompt', 'input', 'question', 'query'] : ['content', 'text', 'output', 'answer', 'completion']) {
    if (typeof value[key] === 'string') return [{ role: side === 'input' ? 'user' : 'assistant', parts: [{ type: 'text', content: value[key] as string }] }];
  }
  return null;
}

const LONG = 1500;
const EDGE = 4;
/** Messages opened per click in a long conversation's middle. */
const STEP = 50;

function TextPart({ text }: { text: string }) {
  const [open, setOpen] = useState(text.length <= LONG);
  return (
    <>
      <Markdown text={open ? text : `${text.slice(0, LONG)}…`} />
      {text.length > LONG && (
        <button type="button" className="link" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? 'Collapse' : `Expand (${text.length.toLocaleString('en-US')} characters)`}
        </button>
      )}
    </>
  );
}

function PartView({ part }: { part: Part }) {
  switch (part.type) {
    case 'text':
      return <TextPart text={part.content} />;
    case 'reasoning':
      return (
        <details className="sl-reasoning">
          <summary>Reasoning</summary>
          <TextPart text={part.content} />
        </details>
      );
    case 'tool_call':
      return (
        <div className="sl-tool">
          <div className="sl-tool-head">
            Tool call <code>{part.name}</code>
            {part.id && <span className="muted"> · {part.id}</span>}
          </div>
          <pre className="sl-code">{typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments, null, 2)}</pre>
        </div>
      );
    case 'tool_result':
      return (
        <div className="sl-tool">
          <div className="sl-tool-head">Tool result{part.id && <span className="muted"> · {part.id}</span>}</div>
          <pre className="sl-code">{str(part.response)}</pre>
        </div>
      );
    case 'image':
      return /^https?:\/\//i.test(part.uri) ? (
        <img className="sl-image" src={part.uri} alt="Image in the message" loading="lazy" referrerPolicy="no-referrer" />
      ) : (
        <p className="muted">Image: {part.uri.slice(0, 200)}</p>
      );
  }
}

function MessageView({ message }: { message: Message }) {
  return (
    <li className={`sl-msg sl-msg-${message.role.replace(/[^a-z]/gi, '')}`}>
      <div className="sl-msg-role">{message.role}</div>
      <div className="sl-msg-body">
        {message.parts.length === 0 ? <p className="muted">(empty)</p> : message.parts.map((part, i) => <PartView key={i} part={part} />)}
      </div>
    </li>
  );
}

/**
 * A conversation, long ones shown by their first and last messages with the middle opened 50 at a time
 * (a 400-message input stays a short page until asked for more, and never all at once by accident).
 */
export function Conversation({ messages, label }: { messages: Message[]; label: string }) {
  const middle = Math.max(0, messages.length - EDGE * 2);
  const [opened, setOpened] = useState(messages.length <= EDGE * 2 + 2 ? middle : 0);
  const hidden = middle - opened;
  const head = messages.slice(0, EDGE + opened);
  const tail = messages.slice(EDGE + middle);
  return (
    <ol className="sl-conversation" aria-label={label}>
      {head.map((m, i) => (
        <MessageView key={i} message={m} />
      ))}
      {hidden > 0 && (
        <li className="sl-msg-more">
          <span className="muted">{hidden.toLocaleString('en-US')} messages hidden</span>{' '}
          <button type="button" onClick={() => setOpened(opened + Math.min(STEP, hidden))}>
            Show {Math.min(STEP, hidden)} more
          </button>
        </li>
      )}
      {tail.map((m, i) => (
        <MessageView key={EDGE + middle + i} message={m} />
      ))}
    </ol>
  );
}

/** A run's inputs or outputs: as a conversation when they are one, else as JSON; raw JSON a click away. */
export function RunValue({ value, side, label }: { value: unknown; side: 'input' | 'output'; label: string }) {
  const messages = conversationOf(value, side);
  const [raw, setRaw] = useState(false);
  return (
    <section className="sl-value" aria-label={label}>
      <div className="sl-value-head">
        <h3>{label}</h3>
        {messages && (
          <button type="button" className="link" onClick={() => setRaw(!raw)} aria-pressed={raw}>
            {raw ? 'Conversation' : 'Raw JSON'}
          </button>
        )}
      </div>
      {messages && !raw ? <Conversation messages={messages} label={label} /> : <JsonView value={value} />}
    </section>
  );
}
