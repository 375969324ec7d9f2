import type { ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

type Step = { set: string; value: string | number | readonly string[] } | { remove: string };

/**
 * Helmet's security headers as a function of nothing: helmet's middleware writes the same headers, in
 * the same order, on every response for one set of options, but builds itself (parsing the
 * Content-Security-Policy directives) on every call, which `@fastify/helmet` makes per request (about a
 * tenth of the CPU of a small API answer). Here helmet runs once, its header writes are recorded, and
 * each response replays them on the raw response, as helmet would have written them.
 */
export function securityHeaders(options: Readonly<HelmetOptions>): (response: ServerResponse) => void {
  const steps: Step[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => steps.push({ set: name, value }),
    removeHeader: (name: string) => steps.push({ remove: name }),
  };
  // The options make no header depend on the request (no CSP nonces): helmet reads nothing of it.
  helmet(options as HelmetOptions)({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error;
  });
  return (response) => {
    for (const step of steps) {
      if ('set' in step) response.setHeader(step.set, step.value);
      else response.removeHeader(step.remove);
    }
  };
}

/**
 * The security headers of an API answer (`/v1`: JSON, problem documents, exports; never a document a
 * browser renders as a page): the set of OWASP's REST Security Cheat Sheet. Nothing may frame, sniff,
 * load or run the answer (`default-src 'none'`), it is fetched only over HTTPS once a browser has seen
 * the service on HTTPS, and other sites cannot embed it. Helmet's other headers govern documents (DNS
 * prefetching, downloads, Flash and Acrobat policies, the opener and agent cluster of a page, referrers
 * of its links, a legacy XSS filter) and are left to the pages: the dashboard and `/docs`. Each header
 * is work on every answer, the cheapest of which (a cached read) costs little more than its headers.
 */
export const API_SECURITY_HEADERS: readonly (readonly [name: string, value: string])[] = [
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
  ['cross-origin-resource-policy', 'same-site'],
  ['strict-transport-security', 'max-age=31536000; includeSubDomains'],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
];

/**
 * Sets `API_SECURITY_HEADERS` on a reply, among its other headers: Node writes a response whose headers
 * all come with `writeHead` without copying each into its own map first (`setHeader`), so an API answer
 * costs less than with helmet's writes on the raw response. Named in lower case, as Fastify keeps them.
 */
export function apiSecurityHeaders(reply: { header(name: string, value: string): unknown }): void {
  for (const [name, value] of API_SECURITY_HEADERS) reply.header(name, value);
}

/** The service's helmet options: a strict Content-Security-Policy (the API answers JSON) and same-site resources. */
export function serviceHelmetOptions(publicUrl: string): HelmetOptions {
  return {
    // The API answers JSON; only the reference page at /docs loads scripts and styles (its own).
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
        // Only where the service is served over HTTPS: on http://localhost it would break /docs.
        upgradeInsecureRequests: publicUrl.startsWith('https:') ? [] : null,
      },
    },
    crossOriginResourcePolicy: { policy: 'same-site' },
  };
}
