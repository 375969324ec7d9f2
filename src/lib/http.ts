import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMIT, jsonOnly, payloadTooLarge as tooLarge } from './body.js';
import { Problem, problemBody, problems } from './problems.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Echo a sane incoming X-Request-Id, else generate one. */
export function requestIdFrom(headers: Record<string, string | string[] | undefined>, generate: () => string): string {
  const incoming = headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : generate();
}

/** Query values that could hold a secret are never logged. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq === -1 ? pair : pair.slice(0, eq);
      return /token|secret|password|key|code|auth|session/i.test(key) && eq !== -1 ? `${key}=[REDACTED]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

const payloadTooLarge = () => tooLarge(BODY_LIMIT);

/** Maps anything thrown into the closed set of problems. Unknown errors become a bare 500. */
export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  const e = (error ?? {}) as FastifyLikeError;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return jsonOnly();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problems.validation([{ pointer: '', detail: 'The body is empty but Content-Type says JSON.' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problems.validation([{ pointer: '', detail: 'The body is not valid JSON.' }]);
    case 'FST_ERR_BAD_URL':
      return problems.validation([{ parameter: 'path', detail: 'The URL is not well formed.' }]);
    case '22021':
      // PostgreSQL refuses U+0000 in text ("invalid byte sequence for encoding UTF8: 0x00"); the only way a
      // request reaches this is a NUL character in one of its own values (path, query or body).
      return problems.validation([{ pointer: '', detail: 'The request contains the NUL character (U+0000), which is not accepted in any value.' }]);
    default:
      break;
  }
  if (error instanceof SyntaxError || (e.statusCode === 400 && /JSON/i.test(e.message ?? ''))) {
    return problems.validation([{ pointer: '', detail: 'The body is not valid JSON.' }]);
  }
  if (typeof e.statusCode === 'number') {
    if (e.statusCode === 404) return problems.notFound('Not found.');
    if (e.statusCode === 413) return payloadTooLarge();
    if (e.statusCode === 415) return jsonOnly();
    if (e.statusCode === 503) return new Problem('service-unavailable', { detail: 'The service is not available right now. Retry later.' });
    if (e.statusCode >= 400 && e.statusCode < 500) return problems.validation([{ pointer: '', detail: 'The request could not be processed.' }]);
  }
  return new Problem('internal', { detail: 'An unexpected error occurred. Quote the request id when reporting it.' });
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, problem: Problem, problemBase: string): FastifyReply {
  const body = problemBody(problem, problemBase, request.id);
  return reply.code(problem.status).headers(problem.headers).header('content-type', 'application/problem+json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * Sends JSON text (or its UTF-8 bytes) that is already serialized by its response schema (stored run
 * records), bypassing a second serialization. The route's response schema still documents the body.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

/**
 * Sends a JSON body with a strong validator of its content (`ETag`), or 304 when the client's
 * `If-None-Match` already holds it — so clients can poll prompts cheaply.
 */
export function sendWithEtag(request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply {
  const json = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  reply.header('etag', etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
    return reply.code(304).send();
  }
  return sendJsonText(reply, json);
}
