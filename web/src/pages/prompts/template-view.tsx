import { isChat, type Template } from './template.js';

/** A template as it reads: plain text, or each chat message under its role. */
export function TemplateView({ template, label }: { template: Template; label?: string }) {
  if (!isChat(template)) {
    return (
      <pre className="template-view" aria-label={label}>
        {template === '' ? <span className="muted">(empty)</span> : template}
      </pre>
    );
  }
  return (
    <div className="template-view" aria-label={label} role={label ? 'group' : undefined}>
      {template.map((message, i) => (
        <div key={i} className="chat-message">
          <span className="chat-role">{message.role}</span>
          <div>{message.content === '' ? <span className="muted">(empty)</span> : message.content}</div>
        </div>
      ))}
    </div>
  );
}
