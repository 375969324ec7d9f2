import { useState, type FormEvent } from 'react';
import { views } from '../api.js';
import { useList } from '../hooks.js';
import type { CreateSavedViewInput, SavedView } from '../types.js';
import { ErrorBox } from './ui.js';

type Filters = NonNullable<CreateSavedViewInput['filters']>;

/** A view's filters as the list's URL query (arrays repeated), and back. */
export function searchOfView(filters: SavedView['filters']): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else if (value !== undefined) params.set(key, String(value));
  }
  return params;
}
const ARRAYS = new Set(['tag', 'hasMetadata', 'hasScore']);
export function viewOfSearch(search: URLSearchParams): Filters {
  const filters: Record<string, string | string[]> = {};
  for (const key of new Set(search.keys())) {
    if (key === 'startedAfter' || key === 'startedBefore') continue; // a zoom is a moment, not part of a view
    filters[key] = ARRAYS.has(key) ? search.getAll(key) : search.get(key)!;
  }
  return filters as Filters;
}

/**
 * Your saved views of a list (the API keeps them per user): apply one, save the current filters under a
 * name, delete one. The server validates the filters as the list does, so a view always applies.
 */
export function SavedViews({
  projectId,
  page,
  search,
  onApply,
}: {
  projectId: string;
  page: SavedView['page'];
  search: URLSearchParams;
  onApply: (params: URLSearchParams) => void;
}) {
  const list = useList(views.list(projectId), { page }, 100);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await views.create(projectId, { name: name.trim(), page, filters: viewOfSearch(search) });
      setName('');
      list.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div className="sl-views" role="group" aria-label="Saved views">
      <label>
        <span>Saved views</span>
        <select
          value=""
          onChange={(e) => {
            const view = list.items.find((v) => v.id === e.target.value);
            if (view) onApply(searchOfView(view.filters));
          }}
        >
          <option value="">{list.items.length === 0 ? 'none yet' : 'Apply a view…'}</option>
          {list.items.map((view) => (
            <option key={view.id} value={view.id}>
              {view.name}
            </option>
          ))}
        </select>
      </label>
      <form onSubmit={save} className="sl-views-save">
        <input aria-label="Name of the new view" placeholder="Save these filters as…" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
        <button type="submit" disabled={name.trim() === ''}>
          Save view
        </button>
      </form>
      {list.items.length > 0 && (
        <details>
          <summary>Manage</summary>
          <ul>
            {list.items.map((view) => (
              <li key={view.id}>
                {view.name}{' '}
                <button
                  type="button"
                  className="link"
                  onClick={() => void views.remove(projectId, view.id).then(list.reload, setError)}
                  aria-label={`Delete the view ${view.name}`}
                >
                  Delete
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
      {error !== null && <ErrorBox error={error} fields={{ name: 'Name of the new view' }} />}
    </div>
  );
}
