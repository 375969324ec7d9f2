// The builds a bench compares: this tree, and an earlier commit built beside it (a detached git worktree
// in the temporary directory, this tree's node_modules linked in, `tsc` as `npm run build` runs it, this
// tree's dashboard build copied), removed when the bench ends however it ends. Servers of either started
// the same way: pinned to the server core, with the Node flags of that tree's `npm start` and an OTLP/gRPC
// port of their own, each on a fresh copy of a template database that tree's CLI migrated and minted a
// token in (one token for every copy: the issuer is the same fixed URL for all).
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createPgDatabase, dropPgDatabase, freePort, log, mintToken, onCleanup, root, serverEnv, startPinned, state } from './harness.js';

const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * The Node flags and environment of `npm start` in `tree` (its own scripts/start-flags.js reads its own
 * package.json; a tree older than `startEnv` sets none).
 */
async function startOf(tree) {
  const { startFlags, startEnv } = await import(pathToFileURL(join(tree, 'scripts/start-flags.js')).href);
  return { flags: startFlags(), env: startEnv ? startEnv() : {} };
}

export async function currentTree() {
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'src') !== '';
  return { key: 'current', root, commit: `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' (src/ changed since)' : ''}`, ...(await startOf(root)) };
}

/** `commit` built beside this tree; removed at cleanup. */
export async function baseTree(commit) {
  const sha = git('rev-parse', '--short', `${commit}^{commit}`);
  const dir = mkdtempSync(join(os.tmpdir(), 'sightline-bench-base-'));
  const remove = onCleanup(() => {
    try {
      git('worktree', 'remove', '--force', dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      git('worktree', 'prune');
    }
  });
  try {
    const t0 = performance.now();
    git('worktree', 'add', '--detach', dir, sha);
    symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'));
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
    } catch (error) {
      let sameLock = true;
      try {
        git('diff', '--quiet', sha, 'HEAD', '--', 'package-lock.json');
      } catch {
        sameLock = false;
      }
      throw new Error(
        `base ${sha} does not build with this tree's node_modules${sameLock ? '' : ' (its package-lock.json differs: it may need a package this tree no longer has)'}; choose another BENCH_BASE: ${error.message}`,
        { cause: error },
      );
    }
    if (existsSync(join(root, 'dist/web'))) cpSync(join(root, 'dist/web'), join(dir, 'dist/web'), { recursive: true });
    log(`base ${sha} built in ${((performance.now() - t0) / 1000).toFixed(1)} s at ${dir}`);
    return { key: 'base', root: dir, commit: sha, ...(await startOf(dir)), remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The JWT issuer of every server and CLI here: fixed, so that a token minted in a template works on every copy. */
const ISSUER = 'http://127.0.0.1';

/** A server's environment: `serverEnv` with the fixed issuer and its own OTLP/gRPC port (`off` for the CLI). */
export const treeEnv = (port, databaseUrl, grpcPort, tree = null) => ({
  ...serverEnv(port, databaseUrl, { ...tree?.env, SIGHTLINE_OTLP_GRPC_PORT: grpcPort ? String(grpcPort) : 'off' }),
  SIGHTLINE_PUBLIC_URL: ISSUER,
});

const templates = new Map();

/** `tree`'s template database on `engine`: migrated by its CLI, an owner's token minted in it. `{ engine, url, token, name }`. */
export function templateOf(tree, engine) {
  const key = `${tree.key}:${engine}`;
  if (!templates.has(key))
    templates.set(
      key,
      (async () => {
        const name = `sl_bench_template_${tree.key}_${process.pid}`;
        const url = engine === 'sqlite' ? `sqlite:${join(mkdtempSync(join(state.tmp, `template-${tree.key}-`)), 'template.db')}` : await createPgDatabase(name);
        const token = await mintToken(treeEnv(0, url, null), tree.root);
        return { engine, url, token, name };
      })(),
    );
  return templates.get(key);
}

/** A fresh copy of a template database, named after `name`: `{ url, drop() }`. */
export async function copyOf(template, name) {
  if (template.engine === 'sqlite') {
    const dir = mkdtempSync(join(state.tmp, `${name}-`));
    const from = template.url.slice('sqlite:'.length);
    for (const suffix of ['', '-wal']) if (existsSync(from + suffix)) copyFileSync(from + suffix, join(dir, `bench.db${suffix}`));
    return { url: `sqlite:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const db = `sl_bench_${name.replace(/\W/g, '_')}_${process.pid}`;
  return { url: await createPgDatabase(db, { template: template.name }), drop: () => dropPgDatabase(db) };
}

/** `tree`'s server on `databaseUrl` (a copy of its template), pinned: `{ server, grpcPort }`. `profileDir`: run it with --cpu-prof. */
export async function startTree(tree, name, databaseUrl, { profileDir = null } = {}) {
  const port = await freePort();
  const grpcPort = await freePort();
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const server = await startPinned(
    name,
    [...tree.flags, ...profile, join(tree.root, 'bin/sightline.js'), 'serve'],
    treeEnv(port, databaseUrl, grpcPort, tree),
    port,
  );
  return { server, grpcPort };
}
