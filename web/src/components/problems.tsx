/**
 * A problem's field faults (`errors[]`: a JSON pointer into the body, or a query or path parameter's
 * name) named as the user sees the field: "Allowed origin 2", not `/allowedOrigins/1`. Every form
 * passes its field labels to `ErrorBox` (components/ui.tsx), which names each fault with `fieldName`.
 */
import type { FieldError } from '../types.js';

/**
 * A form's labels, keyed by pointer path without the leading slash (`allowedOrigins`, `threshold/value`)
 * or by parameter name; `*` in a key stands for any one segment, and `{n}` in its label for the last
 * one it stood for: an array index counted from 1 (`'allowedOrigins/*': 'Allowed origin {n}'` names
 * `/allowedOrigins/1` "Allowed origin 2"), a key as it is (`'variables/*': 'Variable {n}'`). The longest
 * key that matches the start of a pointer names it; what follows is added in plain words.
 */
export type FieldLabels = Readonly<Record<string, string>>;

/** RFC 6901: `~1` is `/`, `~0` is `~`. */
const unescape = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const isIndex = (segment: string) => /^(0|[1-9]\d*)$/.test(segment);

/** `allowedOrigins` → `allowed origins`, `metadata.env` as it is. */
function words(segment: string): string {
  return segment.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A pointer's or parameter's segments named without labels: `Allowed origins 2`, `Filter › tag 1`. */
function plain(segments: string[], capitalize = true): string {
  const parts: string[] = [];
  for (const segment of segments) {
    if (isIndex(segment) && parts.length > 0) parts[parts.length - 1] += ` ${Number(segment) + 1}`;
    else parts.push(isIndex(segment) ? `item ${Number(segment) + 1}` : words(segment));
  }
  const text = parts.join(' › ');
  return capitalize ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/** A `*` segment as `{n}` says it: an array index counted from 1, a key (a variable's name) as it is. */
const shown = (segment: string) => (isIndex(segment) ? String(Number(segment) + 1) : segment);

/** The label of the longest key matching the start of `segments` (an exact key before a `*`), and how many segments it used. */
function labelled(segments: string[], labels: FieldLabels): { label: string; used: number } | null {
  let best: { label: string; used: number; stars: number; last: string } | null = null;
  for (const [key, label] of Object.entries(labels)) {
    const parts = key.split('/');
    if (parts.length > segments.length || !parts.every((part, i) => part === '*' || part === segments[i])) continue;
    const stars = parts.filter((part) => part === '*').length;
    if (best && (parts.length < best.used || (parts.length === best.used && stars >= best.stars))) continue;
    best = { label, used: parts.length, stars, last: segments[parts.lastIndexOf('*')] ?? '' };
  }
  return best && { label: best.label.replace('{n}', shown(best.last)), used: best.used };
}

/** The name of the field a fault is about, in the form's words (`labels`), else the pointer in plain words. */
export function fieldName(fault: Pick<FieldError, 'pointer' | 'parameter'>, labels: FieldLabels = {}): string {
  if (fault.pointer === undefined) {
    const parameter = fault.parameter ?? '';
    return labels[parameter] ?? (parameter ? plain([parameter]) : 'The request');
  }
  const segments = fault.pointer.split('/').slice(1).map(unescape);
  if (segments.length === 0) return 'The request';
  const found = labelled(segments, labels);
  if (!found) return plain(segments);
  const rest = segments.slice(found.used);
  return rest.length === 0 ? found.label : `${found.label} › ${plain(rest, false)}`;
}

/** The faults as a list, each `Allowed origin 2: Must use https…`. */
export function FaultList({ errors, labels }: { errors: readonly FieldError[]; labels?: FieldLabels | undefined }) {
  if (errors.length === 0) return null;
  return (
    <ul>
      {errors.map((fault, i) => (
        <li key={i}>
          <strong>{fieldName(fault, labels)}:</strong> {fault.detail}
        </li>
      ))}
    </ul>
  );
}
