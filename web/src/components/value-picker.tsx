import { useEffect, useId, useState, type ChangeEvent, type InputHTMLAttributes } from 'react';
import { runs } from '../api.js';

/** A field of the runs whose values a picker offers (`metadataValue` with its key). */
export type PickedField = 'name' | 'model' | 'tag' | 'sessionId' | 'userId' | 'metadataKey' | 'metadataValue';

/** Values offered at once: the first of the field's (in code-point order) that start with what is typed. */
const OFFERED = 50;

/**
 * The values of a field that start with `prefix`, read from `GET …/runs/values` once the field has been
 * focused (no request for a form nobody opens) and after typing pauses; none when the request fails (the
 * field still takes what is typed).
 */
function useValues(projectId: string, field: PickedField, metaKey: string | undefined, prefix: string, wanted: boolean): string[] {
  const [values, setValues] = useState<string[]>([]);
  useEffect(() => {
    if (!wanted || (field === 'metadataValue' && !metaKey)) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      runs
        .values(projectId)
        .page({ field, key: field === 'metadataValue' ? metaKey : undefined, prefix: prefix || undefined, limit: String(OFFERED) })
        .then((page) => !cancelled && setValues(page.items.map((item) => item.value)))
        .catch(() => !cancelled && setValues([]));
    }, 200);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [projectId, field, metaKey, prefix, wanted]);
  return values;
}

/**
 * A text input that offers the project's values of a field as one types (a native combobox: an input with a
 * list, which browsers and screen readers know), still taking any value typed.
 */
export function ValuePicker({
  projectId,
  field,
  metaKey,
  value,
  onValue,
  onPick,
  ...input
}: {
  projectId: string;
  field: PickedField;
  metaKey?: string;
  value: string;
  onValue: (value: string) => void;
  /** Called when one of the offered values is chosen from the list (not typed), after `onValue`. */
  onPick?: (value: string) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'list'>) {
  const id = useId();
  const [focused, setFocused] = useState(false);
  const values = useValues(projectId, field, metaKey?.trim() || undefined, value.trim(), focused);
  const change = (event: ChangeEvent<HTMLInputElement>) => {
    const next = event.target.value;
    onValue(next);
    // A choice from the list replaces the text (Chromium: insertReplacementText; others send no inputType); typing inserts.
    const how = (event.nativeEvent as InputEvent).inputType;
    if (onPick && (how === undefined || how === 'insertReplacementText') && values.includes(next)) onPick(next);
  };
  return (
    <>
      <input {...input} value={value} list={id} onFocus={() => setFocused(true)} onChange={change} autoComplete="off" />
      <datalist id={id}>
        {values.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
    </>
  );
}
