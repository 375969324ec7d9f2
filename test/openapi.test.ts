import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/openapi.js';

describe('OpenAPI document', () => {
  it('matches the committed openapi.json (regenerate with `npm run openapi`)', async () => {
    const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
    const generated = JSON.parse(JSON.stringify(await openApiDocument()));
    expect(generated).toEqual(committed);
  });

  it('is OpenAPI 3.1 and describes every /v1 route with a problem response and bearer security', async () => {
    const doc = (await openApiDocument()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const v1 = Object.entries(doc.paths).filter(([path]) => path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThanOrEqual(8);
    for (const [path, methods] of v1) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
        expect(op.responses['401']?.content?.['application/problem+json'], `${method} ${path} 401`).toBeDefined();
        const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
        expect(success.length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });
});
