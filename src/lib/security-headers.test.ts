import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import { securityHeaders, serviceHelmetOptions } from './security-headers.js';

function response(): ServerResponse {
  const request = new IncomingMessage(new Socket());
  return new ServerResponse(request);
}

describe('securityHeaders', () => {
  for (const publicUrl of ['http://localhost:3000', 'https://sightline.example.com']) {
    it(`writes what helmet writes per request, in its order (${publicUrl})`, () => {
      const options = serviceHelmetOptions(publicUrl);
      const byHelmet = response();
      byHelmet.setHeader('X-Powered-By', 'something');
      helmet(options)(byHelmet.req, byHelmet, (error?: unknown) => expect(error).toBeUndefined());
      const replayed = response();
      replayed.setHeader('X-Powered-By', 'something');
      const apply = securityHeaders(options);
      apply(replayed);
      expect(replayed.getHeaderNames()).toEqual(byHelmet.getHeaderNames());
      expect(replayed.getHeaders()).toEqual(byHelmet.getHeaders());
      expect(replayed.getHeaderNames()).toContain('content-security-policy');
      expect(replayed.getHeader('x-powered-by')).toBeUndefined();
      // The same again on the next response: nothing is consumed.
      const again = response();
      apply(again);
      expect(again.getHeaders()).toEqual(byHelmet.getHeaders());
    });
  }
});
