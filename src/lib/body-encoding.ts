import { createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { Problem, problems } from './problems.js';

/** `Content-Encoding` values a request body may carry (RFC 9110 §8.4.1); none or `identity` is the body as it is. */
export const CONTENT_ENCODINGS = ['gzip', 'deflate'] as const;

export const decodedTooLarge = (maxBytes: number) =>
  new Problem('payload-too-large', {
    detail: `The request body exceeds the ${Math.round(maxBytes / 1024 / 1024)} MB limit once decompressed.`,
  });

/** The body's coding, or a 415 problem for one the server does not take. */
export function contentEncodingOf(header: string | string[] | undefined): 'gzip' | 'deflate' | null {
  const value = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
  if (value === '' || value === 'identity') return null;
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate') return 'deflate';
  throw new Problem('unsupported-media-type', {
    detail: `Content-Encoding ${JSON.stringify(value.slice(0, 64))} is not supported: send gzip, deflate or an uncompressed body.`,
  });
}

/** HTTP's `deflate` is the zlib format (RFC 1950); some clients send raw deflate, which is taken too. */
const zlibWrapped = (bytes: Uint8Array) => bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0;

/**
 * Decompresses a body that has been read whole, in a stream so no more than `maxBytes` of output ever
 * exists (a decompression bomb is a 413 after `maxBytes`, not an exhausted heap), each chunk taken from
 * the caller's memory budget first (`reserve` false: 503). Corrupt data is a 400 problem.
 */
export function inflateBody(bytes: Buffer, encoding: 'gzip' | 'deflate', maxBytes: number, reserve: (bytes: number) => boolean): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const stream = encoding === 'gzip' ? createGunzip() : zlibWrapped(bytes) ? createInflate() : createInflateRaw();
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (problem: Problem) => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      stream.destroy();
      reject(problem);
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) return fail(decodedTooLarge(maxBytes));
      if (!reserve(chunk.length)) return fail(problems.unavailable('The server holds as many request bodies as it can right now; retry shortly.', 1));
      chunks.push(chunk);
    });
    stream.on('error', () => fail(problems.validation([{ pointer: '', detail: `The body is not valid ${encoding} data (Content-Encoding: ${encoding}).` }])));
    stream.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    stream.end(bytes);
  });
}
