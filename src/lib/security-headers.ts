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
