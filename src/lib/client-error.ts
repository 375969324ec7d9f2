import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Problem, problemBody } from './problems.js';

/**
 * How long a refused connection may linger after the answer: it keeps reading (and discarding) what
 * the client is still sending, so that closing it does not reset the connection under the answer.
 */
const LINGER_MS = 2000;

interface ClientErrorLog {
  info(fields: Record<string, unknown>, message: string): void;
}

/** What Node's HTTP parser refused, as a problem: 431, 408, or 400 for anything else malformed. */
export function clientErrorProblem(code: string | undefined): Problem {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new Problem('header-fields-too-large', {
        detail: `The request line and headers exceed ${Math.round(maxHeaderSize / 1024)} KB. A personal access token is well under 1 KB: check what the client sends.`,
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new Problem('request-timeout', { detail: 'The request did not arrive in time. Send it again on a new connection.' });
    default:
      return new Problem('validation', { detail: 'The HTTP request is malformed.' });
  }
}

/**
 * Fastify's `clientErrorHandler`: answers on the raw socket (there is no request or reply object yet)
 * with the same problem document as everywhere else, an `X-Request-Id` that is in the log, and
 * `Connection: close`. A connection whose response has already started is closed without a word:
 * writing there would corrupt the response the client is reading.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, problemBase: string, log: ClientErrorLog): void {
  // The parser reports every further chunk of a refused request too: the first one was answered.
  if (error.code === 'ECONNRESET' || socket.destroyed || socket.writableEnded) return;
  const started = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage?.headersSent === true;
  if (started || !socket.writable) {
    socket.destroy();
    return;
  }
  const problem = clientErrorProblem(error.code);
  const requestId = randomUUID();
  log.info({ requestId, code: error.code, status: problem.status }, 'request refused by the HTTP parser');
  const body = JSON.stringify(problemBody(problem, problemBase, requestId));
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
      'Content-Type: application/problem+json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
