import type { RouteOptions } from 'fastify';
import { Problem } from './problems.js';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * The methods each registered path answers, so that a path the server knows, asked with a method it
 * does not answer there, is a 405 problem with `Allow` rather than a 404 (RFC 9110, 15.5.6). Filled
 * from the app's onRoute hook. Catch-all routes (the CORS preflight's `OPTIONS /*`, static assets) do
 * not make a path known.
 */
export class AllowedMethods {
  private readonly paths = new Map<string, KnownPath>();

  readonly onRoute = (route: RouteOptions): void => {
    if (route.url.includes('*')) return;
    let known = this.paths.get(route.url);
    if (!known) {
      known = { pattern: patternOf(route.url), methods: new Set() };
      this.paths.set(route.url, known);
    }
    for (const method of [route.method].flat()) {
      known.methods.add(method);
      if (method === 'GET') known.methods.add('HEAD');
    }
  };

  /** The methods answered at this request path (without its query), sorted; empty when no route has the path. */
  at(path: string): string[] {
    const methods = new Set<string>();
    for (const known of this.paths.values()) if (known.pattern.test(path)) for (const m of known.methods) methods.add(m);
    return [...methods].sort();
  }

  /** The 405 problem for this request, or null when its path is unknown or does answer its method. */
  refusal(method: string, path: string): Problem | null {
    const allowed = this.at(path);
    if (allowed.length === 0 || allowed.includes(method)) return null;
    return new Problem('method-not-allowed', {
      detail: `${method} is not allowed on ${path.slice(0, 200)}; it answers ${allowed.join(', ')}.`,
      headers: { allow: allowed.join(', ') },
    });
  }
}

/** A route path (`/v1/projects/:projectId/runs`) as a regular expression over request paths. */
function patternOf(url: string): RegExp {
  const segments = url.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}
