import { Checkbox, FormField } from './controls.js';
import { switchFormat, type VersionDraft } from './template.js';

/** The fields of a version: its template (plain text or chat messages as JSON), config and message. */
export function VersionFields({ draft, onChange }: { draft: VersionDraft; onChange: (draft: VersionDraft) => void }) {
  return (
    <>
      <Checkbox
        label="Chat format (JSON array)"
        checked={draft.chat}
        onChange={(chat) => onChange(switchFormat(draft, chat))}
        hint={'A list of {"role", "content"} objects; role is system, user, assistant or tool.'}
      />
      <FormField
        label="Template"
        hint={
          draft.chat
            ? 'JSON array, e.g. [{"role": "user", "content": "Hello {{customer}}"}]. Variables: {{variable}}.'
            : 'Plain text. Variables are written {{variable}}.'
        }
      >
        {(control) => (
          <textarea
            {...control}
            required
            rows={draft.chat ? 10 : 7}
            spellCheck={!draft.chat}
            value={draft.template}
            onChange={(e) => onChange({ ...draft, template: e.target.value })}
          />
        )}
      </FormField>
      <FormField label="Config (JSON)" hint='Optional model settings, e.g. {"model": "gpt-4o", "temperature": 0.2}.'>
        {(control) => (
          <textarea
            {...control}
            rows={3}
            style={{ minHeight: 72 }}
            spellCheck={false}
            value={draft.config}
            onChange={(e) => onChange({ ...draft, config: e.target.value })}
          />
        )}
      </FormField>
      <FormField label="Message" hint="What changed, like a commit message (optional).">
        {(control) => <input {...control} maxLength={2000} value={draft.message} onChange={(e) => onChange({ ...draft, message: e.target.value })} />}
      </FormField>
    </>
  );
}
