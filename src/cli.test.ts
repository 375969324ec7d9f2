import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/build-if-needed.js';
import { freePort } from '../test/helpers/services.js';

const BIN = new URL('../bin/sightline.js', import.meta.url).pathname;

function cli(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 60_000 });
}

async function waitForReady(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

describe('the sightline command', () => {
  let dir: string;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'sightline-cli-'));
    env = { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, SIGHTLINE_PUBLIC_URL: 'http://127.0.0.1:1' };
  }, 180_000);
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints help for itself and each command', () => {
    const main = cli(['--help'], env);
    expect(main.status).toBe(0);
    for (const command of ['serve', 'migrate', 'token create']) expect(main.stdout).toContain(command);
    for (const args of [
      ['serve', '--help'],
      ['migrate', '--help'],
      ['token', 'create', '--help'],
    ]) {
      const res = cli(args, env);
      expect(res.status, args.join(' ')).toBe(0);
      expect(res.stdout).toMatch(/^Usage: sightline/);
    }
  });

  it('migrates, and says so', () => {
    const first = cli(['migrate'], env);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/Applied: 2026-11-22-001-core|up to date/);
    const again = cli(['migrate'], env);
    expect(again.stdout).toContain('Database is up to date.');
  });

  it('refuses bad options with one line on stderr', () => {
    for (const args of [
      ['token', 'create', '--email', 'a@b.test', '--org', 'acme', '--role', 'superuser'],
      ['token', 'create', '--org', 'acme', '--role', 'owner'],
      ['token', 'create', '--email', 'a@b.test', '--org', 'acme', '--role', 'owner', '--expires-in-days', 'never'],
      ['token', 'create', '--email', 'a@b.test', '--org', 'acme', '--role', 'owner', '--expires-in-days', '366'],
      ['token', 'create', '--bogus'],
      ['frobnicate'],
    ]) {
      const res = cli(args, env);
      expect(res.status, args.join(' ')).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/^sightline: /);
    }
  });

  it('stops start-up with one line naming an invalid setting', () => {
    const res = cli(['serve'], { ...env, PORT: 'eighty' });
    expect(res.status).toBe(2);
    expect(res.stderr.trim()).toMatch(/^sightline: Invalid configuration: PORT /);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('stops start-up with one line when the OTLP/gRPC port set explicitly is taken', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const grpcPort = (taken.address() as AddressInfo).port;
    try {
      const port = await freePort();
      const res = cli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1', SIGHTLINE_OTLP_GRPC_PORT: String(grpcPort) });
      expect(res.status).toBe(2);
      expect(res.stderr.trim()).toBe(`sightline: Invalid configuration: SIGHTLINE_OTLP_GRPC_PORT ${grpcPort} is in use`);
    } finally {
      taken.close();
    }
  });

  it('mints a token the server accepts, and shuts down gracefully on SIGTERM with a request in flight', async () => {
    const port = await freePort();
    const serverEnv = { ...env, PORT: String(port), HOST: '127.0.0.1', SIGHTLINE_PUBLIC_URL: `http://127.0.0.1:${port}` };
    const minted = cli(['token', 'create', '--email', 'Ops@Example.test', '--org', 'acme', '--role', 'admin', '--name', 'ci'], serverEnv);
    expect(minted.status).toBe(0);
    const token = minted.stdout.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...serverEnv, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let logs = '';
    child.stdout!.on('data', (d) => (logs += d));
    await waitForReady(port, child);

    const me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { email: 'ops@example.test' }, organization: { name: 'acme' }, role: 'admin' });

    // A request whose body is still arriving when SIGTERM lands must still be answered.
    const body = JSON.stringify({ name: 'graceful' });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/projects',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 300);
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const result = await answered;
    expect(result.status).toBe(201);
    expect(JSON.parse(result.text)).toMatchObject({ name: 'graceful' });
    expect(await exited).toBe(0);
    expect(logs).toContain('shutdown complete');
    expect(logs).not.toContain(token);
  }, 60_000);
});
