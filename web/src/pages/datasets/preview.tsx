import { previewOf } from '../../../../src/features/traces/traces.preview.js';

/** A value's one-line preview (an item's input or expected output, an experiment's output), its full text as the tooltip; none is a dash. */
export function Preview({ value, side }: { value: unknown; side: 'input' | 'output' }) {
  const text = value === null || value === undefined ? null : previewOf(value, side);
  if (text === null || text === '') return <span className="muted">—</span>;
  return (
    <span className="sl-ds-preview" title={text}>
      {text}
    </span>
  );
}
