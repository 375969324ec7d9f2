import type { Monitor } from '../../types.js';
import { describeFilter } from './model.js';

/** A monitor's filter as chips (`kind = llm`, `tag prod`…), or `none` when it selects every run. */
export function FilterChips({ filter, none }: { filter: Monitor['filter']; none: string }) {
  const parts = describeFilter(filter);
  if (parts.length === 0) return <span className="muted">{none}</span>;
  return (
    <span className="chips">
      {parts.map((part) => (
        <span key={part} className="chip">
          {part}
        </span>
      ))}
    </span>
  );
}
