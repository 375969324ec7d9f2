/**
 * A short text for a run's inputs or outputs, as lists show them: the text a person would read first
 * (the last user message of a conversation going in, the first answer coming out, a lone string
 * field), whitespace folded, at most PREVIEW_LENGTH characters. Dependency-free.
 */

export const PREVIEW_LENGTH = 200;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function cut(text: string): string | null {
  const folded = text.replace(/\s+/g, ' ').trim();
  if (folded === '') return null;
  if (folded.length <= PREVIEW_LENGTH) return folded;
  // Never end on half a surrogate pair.
  let end = PREVIEW_LENGTH - 1;
  if (/[\ud800-\udbff]/.test(folded[end - 1]!)) end--;
  return `${folded.slice(0, end)}…`;
}

/** A message's text: the GenAI shape (`parts`), OpenAI's (`content` text or parts), or null. */
function messageText(message: unknown): string | null {
  if (!isObject(message)) return null;
  const pieces: string[] = [];
  const collect = (part: unknown) => {
    if (typeof part === 'string') pieces.push(part);
    else if (isObject(part) && typeof (part.content ?? part.text) === 'string') pieces.push((part.content ?? part.text) as string);
    else if (isObject(part) && part.type === 'tool_call' && typeof part.name === 'string') pieces.push(`${part.name}(…)`);
  };
  if (Array.isArray(message.parts)) message.parts.forEach(collect);
  if (typeof message.content === 'string') pieces.push(message.content);
  else if (Array.isArray(message.content)) message.content.forEach(collect);
  return pieces.length > 0 ? pieces.join(' ') : null;
}

/** The preview of a value that is a conversation (a list of messages, or `{ messages }`), or null. */
function conversationText(value: unknown, side: 'input' | 'output'): string | null {
  const messages = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.messages) ? value.messages : null;
  if (!messages || messages.length === 0 || !messages.every((m) => isObject(m) && typeof m.role === 'string')) return null;
  const pick = side === 'input' ? ([...messages].reverse().find((m) => (m as Json).role === 'user') ?? messages[messages.length - 1]) : messages[0];
  return messageText(pick);
}

export function previewOf(value: unknown, side: 'input' | 'output'): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return cut(value);
  if (typeof value !== 'object') return cut(String(value));
  const conversation = conversationText(value, side);
  if (conversation !== null) return cut(conversation);
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return null;
    const strings = entries.filter(([, v]) => typeof v === 'string');
    if (strings.length === 1) return cut(strings[0]![1] as string);
  }
  return cut(JSON.stringify(value));
}
