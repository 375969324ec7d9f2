import { useState } from 'react';
import {
  conversationOf,
  documentsOf,
  queryOf,
  str,
  type Message,
  type Part,
  type RetrievedDocument,
} from '../../../src/features/traces/traces.conversation.js';
import type { RunKind } from '../types.js';
import { Markdown } from './markdown.js';
import { JsonView } from './ui.js';

/**
 * A model call's inputs or outputs as the conversation they are (the shapes traces.conversation.ts
 * reads): role by role, text as Markdown, tool calls with their arguments and tool results, reasoning
 * folded, images by reference. Anything else is shown as JSON; the raw JSON is always one click away.
 */
export { conversationOf, type Message, type Part };

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

/** The documents a retriever found, in order: each one's rank, id, score, content (Markdown, long ones folded) and metadata. */
export function Documents({ documents, label }: { documents: RetrievedDocument[]; label: string }) {
  return (
    <ol className="sl-docs" aria-label={label}>
      {documents.map((document, i) => (
        <li key={i} className="sl-doc">
          <div className="sl-doc-head">
            <span className="sl-doc-rank">#{i + 1}</span>
            {document.id !== null && <code>{document.id}</code>}
            {document.score !== null && <span className="muted">score {Number(document.score.toPrecision(4))}</span>}
          </div>
          {document.content !== null && <TextPart text={document.content} />}
          {document.metadata !== null && (
            <details className="sl-doc-meta">
              <summary>Metadata</summary>
              <pre className="sl-code">{str(document.metadata)}</pre>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}

/** How a run's value reads: a retriever's query or documents, a conversation, or none (shown as JSON). */
type Reading = { as: 'query'; text: string } | { as: 'documents'; documents: RetrievedDocument[] } | { as: 'conversation'; messages: Message[] } | null;

function readingOf(value: unknown, side: 'input' | 'output', kind: RunKind | undefined): Reading {
  const retriever = kind === 'retriever';
  if (retriever && side === 'input') {
    const text = queryOf(value);
    return text === null ? null : { as: 'query', text };
  }
  const documents = side === 'output' ? documentsOf(value, retriever) : null;
  if (documents) return { as: 'documents', documents };
  const messages = conversationOf(value, side);
  return messages ? { as: 'conversation', messages } : null;
}

/**
 * A run's inputs or outputs: a retriever's query as text and the documents it found as a list, a
 * conversation as one, else JSON; raw JSON a click away.
 */
export function RunValue({ value, side, label, kind }: { value: unknown; side: 'input' | 'output'; label: string; kind?: RunKind }) {
  const reading = readingOf(value, side, kind);
  const [raw, setRaw] = useState(false);
  const readable = { query: 'Query', documents: 'Documents', conversation: 'Conversation' };
  return (
    <section className="sl-value" aria-label={label}>
      <div className="sl-value-head">
        <h3>{label}</h3>
        {reading && (
          <button type="button" className="link" onClick={() => setRaw(!raw)} aria-pressed={raw}>
            {raw ? readable[reading.as] : 'Raw JSON'}
          </button>
        )}
      </div>
      {reading === null || raw ? (
        <JsonView value={value} />
      ) : reading.as === 'query' ? (
        <p className="sl-query">{reading.text}</p>
      ) : reading.as === 'documents' ? (
        <Documents documents={reading.documents} label={`${label}: ${reading.documents.length} ${reading.documents.length === 1 ? 'document' : 'documents'}`} />
      ) : (
        <Conversation messages={reading.messages} label={label} />
      )}
    </section>
  );
}
