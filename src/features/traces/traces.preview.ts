/**
 * A short text for a run's inputs or outputs, as lists show them: the text a person would read first
 * (the last user message of a conversation going in, the assistant's answer coming out, in any shape
 * traces.conversation.ts reads; else a lone string field), whitespace folded, at most PREVIEW_LENGTH
 * characters. Dependency-free: the dashboard's runs list uses it too.
 */
import { conversationOf, documentsOf, messageText, shownMessage } from './traces.conversation.js';

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

/** The preview of a run's inputs or outputs (the runs list and the traces list show the same). */
export function previewOf(value: unknown, side: 'input' | 'output'): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return cut(value);
  if (typeof value !== 'object') return cut(String(value));
  const documents = side === 'output' ? documentsOf(value, false) : null;
  if (documents) return cut(`${documents.length} ${documents.length === 1 ? 'document' : 'documents'}: ${documents[0]!.content ?? ''}`);
  const messages = conversationOf(value, side);
  const shown = messages && shownMessage(messages, side);
  const text = shown ? messageText(shown) : '';
  if (text !== '') return cut(text);
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return null;
    const strings = entries.filter(([, v]) => typeof v === 'string');
    if (strings.length === 1) return cut(strings[0]![1] as string);
  }
  return cut(JSON.stringify(value));
}
