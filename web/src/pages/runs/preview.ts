/** The one-line previews of a run's inputs and outputs in the runs list. */
import { previewOf } from '../../../../src/features/traces/traces.preview.js';
import { conversationOf, type Message } from '../../components/conversation.js';

const textOf = (message: Message) =>
  message.parts
    .map((part) => (part.type === 'text' ? part.content : part.type === 'tool_call' ? `${part.name}(…)` : ''))
    .filter((text) => text !== '')
    .join(' ');

/**
 * A run's inputs or outputs as one line of at most 200 characters: for a conversation in any shape the
 * run page renders as messages, the last user message going in and the assistant's answer coming out;
 * else what the traces list shows for the same value (the server's rule: a lone string field, or
 * compact JSON). Null when there is nothing to show.
 */
export function runPreview(value: unknown, side: 'input' | 'output'): string | null {
  const messages = conversationOf(value, side);
  const pick =
    messages &&
    (side === 'input' ? (messages.findLast((m) => m.role === 'user') ?? messages.at(-1)) : (messages.find((m) => m.role === 'assistant') ?? messages[0]));
  const text = pick ? textOf(pick) : '';
  return previewOf(text !== '' ? text : value, side);
}
