/**
 * What docs/operations.md's "Durability" promises for SQLite: a write the API acknowledged survives `kill -9` of
 * the server process, with `synchronous = NORMAL` (the default) and with FULL. A real server process
 * (`bin/sightline.js serve`), a token minted by the CLI on the same database, and SIGKILL.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../scripts/build-if-needed.js';
import { freePort } from './helpers/services.js';

const BIN = new URL('../bin/sightline.js', import.meta.url).pathname;

describe('SQLite durability: acknowledged writes survive kill -9 of the server', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'sightline-durability-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const synchronous of ['NORMAL', 'FULL']) {
    it(`synchronous=${synchronous}: every run acknowledged before SIGKILL is in the database afterwards`, async () => {
      const port = await freePort();
      const path = join(dir, `${synchronous}.db`);
      const env = {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${path}`,
        SIGHTLINE_PUBLIC_URL: `http://127.0.0.1:${port}`,
        SIGHTLINE_SQLITE_SYNCHRONOUS: synchronous,
        LOG_LEVEL: 'warn',
      };
      const minted = await promisify(execFile)(process.execPath, [BIN, 'token', 'create', '--email', 'd@example.test', '--org', 'durable', '--role', 'owner'], {
        env,
        timeout: 60_000,
      });
      const token = minted.stdout.trim().split('\n').at(-1)!;
      const server = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      server.stderr!.on('data', (d) => (stderr += d));
      const exited = new Promise((resolve) => server.once('exit', resolve));
      try {
        const base = `http://127.0.0.1:${port}`;
        for (
          let tries = 0;
          !(await fetch(`${base}/readyz`).then(
            (r) => r.ok,
            () => false,
          ));
          tries++
        ) {
          if (tries > 300 || server.exitCode !== null) throw new Error(`the server did not start:\n${stderr}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const post = (url: string, body: unknown) =>
          fetch(`${base}${url}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const project = (await (await post('/v1/projects', { name: 'durable' })).json()) as { id: string };
        const runs = Array.from({ length: 500 }, (_, i) => ({
          name: `run-${i}`,
          kind: 'llm',
          startTime: new Date(Date.UTC(2026, 10, 2, 10, 0, i % 60)).toISOString(),
        }));
        const batch = await post(`/v1/projects/${project.id}/runs/batch`, { runs });
        expect(batch.status).toBe(200);
        expect(((await batch.json()) as { results: { status: string }[] }).results.every((r) => r.status === 'created')).toBe(true);
        const last = await post(`/v1/projects/${project.id}/runs`, { id: 'the-last-one', name: 'last', kind: 'chain', startTime: '2026-11-02T11:00:00.000Z' });
        expect(last.status).toBe(201);
      } finally {
        server.kill('SIGKILL');
        await exited;
      }
      expect(server.signalCode).toBe('SIGKILL');
      // What a restarted server would find: the database, its WAL replayed.
      const db = new Database(path, { fileMustExist: true });
      try {
        expect(db.prepare('select count(*) as n from runs').get()).toEqual({ n: 501 });
        expect(db.prepare("select count(*) as n from runs where name = 'last'").get()).toEqual({ n: 1 });
      } finally {
        db.close();
      }
    }, 90_000);
  }
});
