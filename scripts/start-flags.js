// The Node flags `npm start` runs the server with, read from package.json's start script, so the suites
// and benches that start real server processes run it as it ships (heap limits above all).
import { readFileSync } from 'node:fs';

/** `--flag=value` arguments of the start script, `${NAME:-default}` read from `env`. */
export function startFlags(env = process.env) {
  const script = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start;
  return [...script.matchAll(/--[\w-]+=\S+/g)].map(([flag]) => flag.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name, fallback) => env[name] || fallback));
}
