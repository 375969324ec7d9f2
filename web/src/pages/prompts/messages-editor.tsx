import { Button, Options } from '../../components/ui.js';
import { draftMessage, MAX_MESSAGES, ROLES, type ChatMessage, type DraftMessage } from './template.js';

/**
 * A chat template edited as its messages: one row per message with its role and content, added,
 * removed and moved up or down. Every control is named by the message's place ("Content of message 2"),
 * the names the server's field errors are given too (`/template/1/content`: see version-fields.tsx).
 */
export function MessagesEditor({ messages, onChange }: { messages: DraftMessage[]; onChange: (messages: DraftMessage[]) => void }) {
  const update = (index: number, change: Partial<ChatMessage>) => onChange(messages.map((m, i) => (i === index ? { ...m, ...change } : m)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...messages];
    const [moved] = next.splice(index, 1);
    next.splice(index + by, 0, moved!);
    onChange(next);
  };
  const add = () => {
    const last = messages.at(-1)?.role;
    onChange([...messages, draftMessage(last === 'user' ? 'assistant' : 'user')]);
  };
  return (
    <fieldset className="form-section messages-editor">
      <legend>Template: chat messages</legend>
      <ol aria-label="Chat messages">
        {messages.map((message, i) => {
          const n = i + 1;
          return (
            <li key={message.key} className="message-row">
              <div className="message-head">
                <span className="message-number">Message {n}</span>
                <select aria-label={`Role of message ${n}`} value={message.role} onChange={(e) => update(i, { role: e.target.value as ChatMessage['role'] })}>
                  <Options values={ROLES} />
                </select>
                <span className="message-actions">
                  <Button variant="ghost" className="compact" aria-label={`Move message ${n} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                    ↑
                  </Button>
                  <Button
                    variant="ghost"
                    className="compact"
                    aria-label={`Move message ${n} down`}
                    disabled={i === messages.length - 1}
                    onClick={() => move(i, 1)}
                  >
                    ↓
                  </Button>
                  <Button
                    variant="ghost"
                    className="compact"
                    aria-label={`Remove message ${n}`}
                    disabled={messages.length === 1}
                    onClick={() => onChange(messages.filter((_, j) => j !== i))}
                  >
                    Remove
                  </Button>
                </span>
              </div>
              <textarea
                aria-label={`Content of message ${n}`}
                rows={3}
                style={{ minHeight: 72 }}
                placeholder={message.role === 'system' ? 'You help {{customer}}.' : '{{question}}'}
                value={message.content}
                onChange={(e) => update(i, { content: e.target.value })}
              />
            </li>
          );
        })}
      </ol>
      <Button onClick={add} disabled={messages.length >= MAX_MESSAGES}>
        Add message
      </Button>
      <p className="field-hint">Variables are written {'{{variable}}'} in any message.</p>
    </fieldset>
  );
}
