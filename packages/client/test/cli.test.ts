/** The CLI's remote commands (`sightline projects`, `runs`, `export`, `prompt`) over the SDK. */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Run } from '../src/index.js';
import { runCli, type CliIo } from '../src/cli.js';
import { main } from '../../../src/cli.js';
import { describeSdk } from './client.test-support.js';

describeSdk((sdk) => {
  describe('the CLI remote commands', () => {
    let projectId: string;
    beforeAll(async () => {
      const project = await sdk.client.projects.create({ name: 'cli' });
      projectId = project.id;
      await sdk.server.make.runs(projectId, 26, (i) => ({
        status: i % 5 === 0 ? 'failed' : 'succeeded',
        endTime: new Date(Date.parse('2026-11-01T00:00:00.000Z') + i * 1000 + 250).toISOString(),
        ...(i % 5 === 0 ? { error: 'x' } : {}),
      }));
      await sdk.client.prompts.create({ name: 'cli-prompt', template: [{ role: 'system', content: 'Be {{tone}}.' }] });
      await sdk.client.prompts.versions.create('cli-prompt', { template: 'Say {{word}}', config: { model: 'gpt-4o' } });
      await sdk.client.prompts.labels.set('cli-prompt', 'production', 1);
    });

    function io(extra: Partial<CliIo> = {}): CliIo & { out: string; err: string } {
      const captured = {
        out: '',
        err: '',
        stdout(text: string) {
          captured.out += text;
        },
        stderr(text: string) {
          captured.err += text;
        },
        env: { SIGHTLINE_URL: sdk.server.url, SIGHTLINE_TOKEN: sdk.owner.token } as Record<string, string | undefined>,
        ...extra,
      };
      return captured;
    }

    it('lists projects and runs as a table or JSON, following every page, with a progress indicator', async () => {
      const projects = io();
      expect(await runCli(['projects', 'list'], projects)).toBe(0);
      expect(projects.out.split('\n')[0]).toMatch(/^ID\s+NAME\s+CREATED/);
      expect(projects.out).toContain(projectId);

      const json = io();
      expect(await runCli(['runs', 'list', '--project', projectId, '--json', '--limit', '10', '--progress'], json)).toBe(0);
      const runs = JSON.parse(json.out) as Run[];
      expect(runs).toHaveLength(26);
      expect(json.err.trim().split('\n')).toEqual(['sightline: 10 runs (1 page)', 'sightline: 20 runs (2 pages)', 'sightline: 26 runs (3 pages)']);

      const failed = io({ stderrIsTTY: true });
      expect(await runCli(['runs', 'list', '--project', projectId, '--status', 'failed', '--limit', '2'], failed)).toBe(0);
      const rows = failed.out.trim().split('\n');
      expect(rows[0]).toMatch(/^ID\s+STATUS\s+KIND\s+NAME\s+MODEL\s+START\s+LATENCY$/);
      expect(rows.slice(1)).toHaveLength(6);
      expect(rows.slice(1).every((row) => / failed /.test(row) && /250 ms$/.test(row))).toBe(true);
      expect(failed.err).toContain('\r6 runs, 3 pages…');
      expect(failed.err.endsWith('\r\u001b[K')).toBe(true);

      const empty = io();
      expect(await runCli(['runs', 'list', '--project', projectId, '--json', '--status', 'running'], empty)).toBe(0);
      expect(JSON.parse(empty.out)).toEqual([]);
    });

    it('exports every run as NDJSON, and resumes from the cursor it prints when interrupted', async () => {
      const whole = io();
      expect(await runCli(['runs', 'export', '--project', projectId, '--format', 'ndjson'], whole)).toBe(0);
      const all = whole.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Run).id);
      expect(all).toHaveLength(26);

      // Ctrl-C while the second page is on its way.
      const controller = new AbortController();
      let pages = 0;
      const interrupted = io({
        signal: controller.signal,
        fetch: async (input, init) => {
          pages += 1;
          if (pages === 2) controller.abort(new Error('interrupted'));
          return fetch(input, init);
        },
      });
      expect(await runCli(['runs', 'export', '--project', projectId, '--format', 'ndjson', '--limit', '10'], interrupted)).toBe(130);
      const firstPart = interrupted.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Run).id);
      expect(firstPart).toEqual(all.slice(0, 10));
      const cursor = /^resume-cursor: (\S+)$/m.exec(interrupted.err)?.[1];
      expect(cursor, interrupted.err).toBeDefined();
      expect(interrupted.err).toContain('interrupted after 10 runs');

      const resumed = io();
      expect(await runCli(['runs', 'export', '--project', projectId, '--format', 'ndjson', '--limit', '10', '--cursor', cursor!], resumed)).toBe(0);
      const rest = resumed.out
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Run).id);
      expect([...firstPart, ...rest]).toEqual(all);

      // Stopped by an error midway (the server gone for good, retries spent): the same resume line, exit 1.
      let calls = 0;
      const broken = io({ fetch: async (input, init) => (++calls >= 2 ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init)) });
      const code = await runCli(['runs', 'export', '--project', projectId, '--limit', '10', '--url', sdk.server.url], broken);
      expect(code).toBe(1);
      expect(broken.err).toMatch(/stopped: .*after 10 runs/);
      expect(broken.err).toMatch(/^resume-cursor: \S+$/m);
      expect(calls).toBe(1 + 4); // the first page, then the second's attempt and its 3 retries
    });

    it('prints a prompt by label, by version or the latest, and reports errors with an exit status', async () => {
      const production = io();
      expect(await runCli(['prompts', 'get', 'cli-prompt', '--label', 'production'], production)).toBe(0);
      expect(production.out).toBe('[system]\nBe {{tone}}.\n');
      expect(production.err).toContain('# cli-prompt version 1 (label production); variables: tone');

      const latest = io();
      expect(await runCli(['prompts', 'get', 'cli-prompt'], latest)).toBe(0);
      expect(latest.out).toBe('Say {{word}}\n');

      const json = io();
      expect(await runCli(['prompts', 'get', 'cli-prompt', '--version', '2', '--json'], json)).toBe(0);
      expect(JSON.parse(json.out)).toMatchObject({ version: 2, config: { model: 'gpt-4o' } });

      const missing = io();
      expect(await runCli(['prompts', 'get', 'nope'], missing)).toBe(1);
      expect(missing.err).toMatch(/^sightline: GET \/v1\/prompts\/nope: 404 Not found/);

      const noToken = io({ env: { SIGHTLINE_URL: sdk.server.url } });
      expect(await runCli(['projects', 'list'], noToken)).toBe(2);
      expect(noToken.err).toContain('SIGHTLINE_TOKEN');
      for (const args of [
        ['runs', 'list'],
        ['runs', 'export', '--project', 'p', '--format', 'csv'],
        ['prompts', 'get'],
        ['projects', 'list', '--bogus'],
        ['runs', 'frob'],
      ]) {
        const bad = io();
        expect(await runCli(args, bad), args.join(' ')).toBe(2);
        expect(bad.err).toMatch(/^sightline: .+\n$/);
      }
    });

    it('is wired into `sightline` (help on each command; the SDK is built and loaded on first use)', async () => {
      const out: string[] = [];
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
      const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(`${args.join(' ')}\n`));
      const saved = { url: process.env.SIGHTLINE_URL, token: process.env.SIGHTLINE_TOKEN };
      try {
        expect(await main(['--help'])).toBe(0);
        for (const command of ['projects list', 'runs list', 'runs export', 'prompts get']) expect(out.join('')).toContain(command);
        for (const command of ['projects', 'runs', 'prompts']) {
          out.length = 0;
          expect(await main([command, 'list', '--help'])).toBe(0);
          expect(out.join('')).toMatch(/^Usage: sightline /);
        }
        process.env.SIGHTLINE_URL = sdk.server.url;
        process.env.SIGHTLINE_TOKEN = sdk.owner.token;
        out.length = 0;
        expect(await main(['runs', 'export', '--project', projectId, '--format', 'ndjson'])).toBe(0);
        expect(out.join('').trim().split('\n')).toHaveLength(26);
      } finally {
        for (const [name, value] of [
          ['SIGHTLINE_URL', saved.url],
          ['SIGHTLINE_TOKEN', saved.token],
        ] as const) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
        write.mockRestore();
        log.mockRestore();
      }
    }, 60_000);
  });
});
