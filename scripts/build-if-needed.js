// Builds dist/ from src/ when dist is missing or older than any source file (suites excepted). No-op otherwise.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Suites and their support modules live beside the code in src/ but are not built (tsconfig.build.json
// excludes them): editing one never makes dist/ stale.
const notBuilt = /\.test(-support)?\.ts$/;

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (!notBuilt.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds the dashboard (web/ → dist/web) with Vite when its sources are newer than the build. */
function ensureDashboardBuilt() {
  const marker = join(root, 'dist', 'web', 'index.html');
  const webDir = join(root, 'web');
  if (!existsSync(webDir)) return;
  const sources = Math.max(newest(webDir), statSync(join(root, 'src', 'auth', 'roles.ts')).mtimeMs);
  if (existsSync(marker) && statSync(marker).mtimeMs >= sources) return;
  let vite;
  try {
    vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    process.stderr.write('sightline: the dashboard is not built and Vite is not installed (npm install): the API runs without it\n');
    return;
  }
  process.stderr.write('sightline: building the dashboard…\n');
  // NODE_ENV as the caller has it (Vitest sets "test") would make Vite bundle React's development build:
  // twice the size, every effect run twice under StrictMode. What is served is always the production build.
  execFileSync(process.execPath, [vite, 'build', '--config', join(webDir, 'vite.config.ts'), '--logLevel', 'warn'], {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

export function ensureBuilt() {
  ensureDashboardBuilt();
  const marker = join(root, 'dist', 'cli.js');
  const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'tsconfig.build.json')).mtimeMs);
  if (existsSync(marker) && statSync(marker).mtimeMs >= sources) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  process.stderr.write('sightline: building (first run or sources changed)…\n');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureBuilt();
