import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { requestLoggerFactory } from './request-logger.js';

/** A Fastify app logging JSON lines at `level` into the returned array, with one route that logs. */
async function appAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ logger: { level, stream }, childLoggerFactory: requestLoggerFactory });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/loud', async (request) => {
    request.log.info('an info line');
    request.log.warn({ detail: 'x' }, 'a warning');
    request.log.child({ part: 'inner' }).error('from a child');
    return { level: request.log.level, id: request.id };
  });
  await app.ready();
  return { app, lines };
}

describe('requestLoggerFactory', () => {
  it('at warn: a request that logs nothing writes nothing; what it logs carries its request id, as pino’s child would', async () => {
    const { app, lines } = await appAt('warn');
    expect((await app.inject({ url: '/quiet' })).statusCode).toBe(200);
    expect(lines).toEqual([]);
    const res = await app.inject({ url: '/loud' });
    const { id } = res.json<{ id: string }>();
    expect(res.json()).toEqual({ level: 'warn', id });
    expect(lines.map((l) => l.msg)).toEqual(['a warning', 'from a child']);
    expect(lines[0]).toMatchObject({ level: 40, reqId: id, detail: 'x' });
    expect(lines[1]).toMatchObject({ level: 50, reqId: id, part: 'inner' });
    await app.close();
  });

  it('at info: Fastify’s request lines and the route’s own, each with the request id', async () => {
    const { app, lines } = await appAt('info');
    const res = await app.inject({ url: '/loud' });
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'an info line', 'a warning', 'from a child', 'request completed']);
    for (const line of lines) expect(line.reqId).toBe(res.json<{ id: string }>().id);
    await app.close();
  });
});
