/**
 * Real server processes for the suites that need them (several instances, memory bounds): started as
 * `npm start` does (`node bin/sightline.js serve`), stopped with SIGTERM, tokens minted by the CLI.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { startEnv, startFlags } from '../../scripts/start-flags.js';

const BIN = new URL('../../bin/sightline.js', import.meta.url).pathname;
const run = promisify(execFile);

/** The Node flags `npm start` runs the server with (its heap limits): pass them to `startInstance` to run it so. */
export const NPM_START_FLAGS = startFlags({});
/** The environment `npm start` sets (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`): every server process of the suites runs with it. */
export const NPM_START_ENV = startEnv({});

export interface Instance {
  name: string;
  port: number;
  child: ChildProcess;
  logs: () => string;
  url: (path: string) => string;
}

export function startInstance(name: string, port: number, env: Record<string, string>, nodeOptions: string[] = []): Instance {
  const child = spawn(process.execPath, [...nodeOptions, BIN, 'serve'], {
    env: { ...process.env, ...NPM_START_ENV, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  child.stdout!.on('data', (d) => (logs += d));
  child.stderr!.on('data', (d) => (logs += d));
  return { name, port, child, logs: () => logs, url: (path) => `http://127.0.0.1:${port}${path}` };
}

export async function waitForReady(instance: Instance, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (instance.child.exitCode !== null) throw new Error(`instance ${instance.name} exited with ${instance.child.exitCode}:\n${instance.logs()}`);
    try {
      const res = await fetch(instance.url('/readyz'));
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`instance ${instance.name} did not become ready:\n${instance.logs()}`);
}

export async function stop(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => instance.child.once('exit', () => resolve()));
  instance.child.kill('SIGTERM');
  const timer = setTimeout(() => instance.child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export interface Minted {
  organizationId: string;
  userId: string;
  tokenId: string;
  token: string;
}

/** `sightline token create`: the organization and user ids on the first line, the token id on the second, the token last. */
export async function cliToken(env: Record<string, string>, email: string, org: string, role: string): Promise<Minted> {
  const { stdout } = await run(process.execPath, [BIN, 'token', 'create', '--email', email, '--org', org, '--role', role, '--name', role], {
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  const lines = stdout.trim().split('\n');
  const token = lines.at(-1)!;
  const organizationId = /organization (org_\w+)/.exec(stdout)?.[1];
  const userId = /user (usr_\w+)/.exec(stdout)?.[1];
  const tokenId = /token (tok_\w+)/.exec(stdout)?.[1];
  if (!organizationId || !userId || !tokenId || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) throw new Error(`unexpected CLI output:\n${stdout}`);
  return { organizationId, userId, tokenId, token };
}

/** The most memory the process has held so far (VmHWM, in MB), from /proc. */
export function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) / 1024;
}
