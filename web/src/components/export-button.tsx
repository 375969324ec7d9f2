import { useRef, useState } from 'react';
import { streamExport, type Query } from '../api.js';
import { fmtNumber } from '../format.js';
import { Button, ErrorBox } from './ui.js';

/**
 * Counts the records of an export as its text arrives in pieces that may split a line: NDJSON lines but
 * its cursor lines, or CSV rows after the header (rows end in CRLF; a line break inside a cell is a bare LF).
 */
export function recordCounter(format: 'ndjson' | 'csv'): (text: string) => number {
  let rest = '';
  let count = format === 'csv' ? -1 : 0;
  const end = format === 'csv' ? '\r\n' : '\n';
  return (text) => {
    const lines = (rest + text).split(end);
    rest = lines.pop() ?? '';
    for (const line of lines) if (format === 'csv' || (line !== '' && !line.startsWith('{"cursor":'))) count++;
    return Math.max(0, count);
  };
}

/**
 * Exports what the list shows (its filters, not its zoomed window's page) as NDJSON or CSV: streamed
 * through the API, the count of records so far shown as it goes, cancellable, then saved as a file.
 */
export function ExportButton({ projectId, what, query }: { projectId: string; what: 'runs' | 'traces'; query: Query }) {
  const [format, setFormat] = useState<'ndjson' | 'csv'>('ndjson');
  const [count, setCount] = useState<number | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);
  const start = async () => {
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    setError(null);
    setCount(0);
    const pieces: string[] = [];
    const counted = recordCounter(format);
    try {
      await streamExport(
        projectId,
        what,
        { ...query, format },
        (text) => {
          pieces.push(text);
          setCount(counted(text));
        },
        controller.signal,
      );
      const url = URL.createObjectURL(new Blob(pieces, { type: format === 'csv' ? 'text/csv' : 'application/x-ndjson' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `${what}.${format}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      if (!controller.signal.aborted) setError(e);
    } finally {
      setRunning(false);
      abort.current = null;
    }
  };
  return (
    <div className="sl-export" role="group" aria-label={`Export ${what}`}>
      <select aria-label="Export format" value={format} onChange={(e) => setFormat(e.target.value as 'ndjson' | 'csv')} disabled={running}>
        <option value="ndjson">NDJSON</option>
        <option value="csv">CSV</option>
      </select>
      {running ? <Button onClick={() => abort.current?.abort()}>Cancel export</Button> : <Button onClick={() => void start()}>Export {what}</Button>}
      <span role="status" aria-live="polite" className="muted">
        {count !== null && `${fmtNumber(count)} ${what} ${running ? 'so far…' : 'exported'}`}
      </span>
      {error !== null && <ErrorBox error={error} />}
    </div>
  );
}
