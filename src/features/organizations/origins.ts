import { problems, type FieldError } from '../../lib/problems.js';
import { PLAN_ORIGIN_QUOTA } from './organizations.schemas.js';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])$`);

/**
 * An allowed origin is exact: `https://host[:port]`, or `http://localhost:<port>` for local development.
 * No paths, wildcards, credentials or trailing slashes; the host is compared as the URL parser writes it.
 */
export function originFault(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be an origin such as https://app.example.com.';
  }
  if (url.origin !== value) return 'Must be exactly an origin (scheme, host and optional port; no path, slash or credentials, lower case).';
  // The URL parser lets `*`, `_` and the like through in a host: an origin names one host, never a pattern.
  if (!HOST.test(url.hostname)) return 'The host must be a plain DNS name or IP address (no wildcards).';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && url.hostname === 'localhost') return null;
  return 'Must use https (http is allowed only for localhost).';
}

export function validateOrigins(origins: string[], pointer: string): void {
  const faults: FieldError[] = [];
  origins.forEach((origin, i) => {
    const fault = originFault(origin);
    if (fault) faults.push({ pointer: `${pointer}/${i}`, detail: fault });
  });
  if (faults.length > 0) throw problems.validation(faults);
}

export function originQuota(plan: string): number {
  return PLAN_ORIGIN_QUOTA[plan] ?? 0;
}
