// The Node flags and the environment `npm start` runs the server with, read from package.json's start
// script, so the suites and benches that start real server processes run it as it ships (heap limits and
// the allocator's arenas above all).
import { readFileSync } from 'node:fs';

const script = () => JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start;
const resolved = (text, env) => text.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name, fallback) => env[name] || fallback);

/** The Node flags of the start script (`--flag=value` and `--flag`), `${NAME:-default}` read from `env`. */
export function startFlags(env = process.env) {
  return [...script().matchAll(/(?<=\s)--[\w-]+(?:=\S+)?/g)].map(([flag]) => resolved(flag, env));
}

/** The `NAME=value` assignments before `node` in the start script (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`), `${NAME:-default}` read from `env`. */
export function startEnv(env = process.env) {
  const [assignments = ''] = script().split(/\bnode\b/, 1);
  return Object.fromEntries([...assignments.matchAll(/(\w+)=(\S+)/g)].map(([, name, value]) => [name, resolved(value, env)]));
}
