import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { PROBLEM_BASE } from './harness.js';

/** A response read over a real socket. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Milliseconds from the request's start to the end of the response. */
  ms: number;
  /** The server closed the connection after answering (or reset it). */
  closed: boolean;
}

/**
 * A request over a real socket whose body is sent in parts, each after its delay, so a test can play
 * a slow, stalled or oversized client. With `end: false` the body is never finished (a stalled upload).
 * Resolves with the answer; rejects if the connection fails before one arrives.
 */
export function slowRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string | number>;
    parts: { data: string | Buffer; afterMs?: number }[];
    end?: boolean;
    timeoutMs?: number;
  },
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'POST', headers: options.headers, agent: false });
    let answered = false;
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${options.timeoutMs ?? 30_000} ms`));
    }, options.timeoutMs ?? 30_000);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        answered = true;
        clearTimeout(timer);
        const socket = res.socket;
        // Give the server a moment to close the connection it said it would close.
        setTimeout(() => resolve({ status: res.statusCode!, headers: res.headers, text, ms: Date.now() - started, closed: socket?.destroyed ?? true }), 50);
        req.destroy();
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      if (!answered) reject(error);
    });
    (async () => {
      for (const part of options.parts) {
        if (part.afterMs) await new Promise((r) => setTimeout(r, part.afterMs));
        if (req.destroyed) return;
        req.write(part.data);
      }
      if (options.end !== false && !req.destroyed) req.end();
    })().catch(() => {});
  });
}

/** Asserts a problem document read over a socket; returns its body. */
export function expectRawProblem(
  answer: { status: number; headers: IncomingHttpHeaders | Headers; text: string },
  status: number,
  slug: string,
): Record<string, unknown> {
  const summary = `${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, summary).toBe(status);
  const type = answer.headers instanceof Headers ? answer.headers.get('content-type') : answer.headers['content-type'];
  expect(String(type), summary).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(body.type, summary).toBe(`${PROBLEM_BASE}/${slug}`);
  expect(body.status).toBe(status);
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

/** `count` runs of about `bytesEach` bytes each, as a batch body. */
export function batchBody(count: number, bytesEach = 1_000, prefix = 'r'): string {
  const pad = 'x'.repeat(Math.max(0, bytesEach - 150));
  const runs = Array.from({ length: count }, (_, i) => ({
    name: `${prefix}-${i}`,
    kind: 'llm',
    startTime: new Date(Date.parse('2026-11-01T00:00:00.000Z') + i).toISOString(),
    inputs: { pad },
  }));
  return JSON.stringify({ runs });
}
