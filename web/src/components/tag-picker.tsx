import { useId, type KeyboardEvent } from 'react';
import { ValuePicker } from './value-picker.js';

/**
 * Tags chosen one at a time, each a chip with its own remove button: the input offers the project's tags
 * (`GET …/runs/values?field=tag`) as one types, and still takes any tag typed. Enter (or a comma) adds
 * what is typed, choosing an offered tag adds it, Backspace in the empty input removes the last one.
 */
export function TagPicker({
  projectId,
  label,
  tags,
  text,
  onChange,
}: {
  projectId: string;
  label: string;
  tags: readonly string[];
  /** What is typed and not yet added (a form's submit adds it too). */
  text: string;
  /** The tags and the text after each change (one call, so that a form's draft takes both at once). */
  onChange: (tags: string[], text: string) => void;
}) {
  const id = useId();
  const add = (typed: string) => {
    const tag = typed.trim();
    onChange(tag !== '' && !tags.includes(tag) ? [...tags, tag] : [...tags], '');
  };
  const keys = (event: KeyboardEvent<HTMLInputElement>) => {
    if ((event.key === 'Enter' || event.key === ',') && text.trim() !== '') {
      event.preventDefault();
      add(text);
    } else if (event.key === 'Backspace' && text === '' && tags.length > 0) onChange(tags.slice(0, -1), '');
  };
  return (
    <div className="field sl-tag-picker">
      <label className="field-label" htmlFor={`${id}-input`}>
        {label}
      </label>
      <ValuePicker
        id={`${id}-input`}
        projectId={projectId}
        field="tag"
        value={text}
        onValue={(typed) => onChange([...tags], typed)}
        onPick={add}
        onKeyDown={keys}
        maxLength={128}
        spellCheck={false}
        placeholder={tags.length > 0 ? 'Add another' : 'Type or pick, Enter adds'}
        aria-describedby={`${id}-hint`}
      />
      <span id={`${id}-hint`} className="sl-sr-only">
        Enter adds the tag typed; every tag added must be present.
      </span>
      {tags.length > 0 && (
        <ul className="sl-chips" aria-label={`${label}s chosen`}>
          {tags.map((tag) => (
            <li key={tag} className="sl-chip">
              <code title={tag}>{tag}</code>
              <button
                type="button"
                onClick={() =>
                  onChange(
                    tags.filter((t) => t !== tag),
                    text,
                  )
                }
                title="Remove this tag"
              >
                <span aria-hidden="true">✕</span>
                <span className="sl-sr-only">
                  Remove {label.toLowerCase()} {tag}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
