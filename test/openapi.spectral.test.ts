import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core';
import { Json as JsonParser } from '@stoplight/spectral-parsers';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * openapi.json through Spectral with the committed ruleset (.spectral.js: Spectral's OpenAPI rules and
 * the OWASP API Security Top 10 ruleset, noise rules off or narrowed there with the reason).
 */
const DOCUMENT = fileURLToPath(new URL('../openapi.json', import.meta.url));
const RULESET = new URL('../.spectral.js', import.meta.url).href;
const SEVERITY = ['error', 'warning', 'information', 'hint'];

type Json = Record<string, any>;
const committed = (): Json => JSON.parse(readFileSync(DOCUMENT, 'utf8'));

let spectral: Spectral;
beforeAll(async () => {
  spectral = new Spectral();
  spectral.setRuleset((await import(RULESET)).default);
});

async function lint(document: Json): Promise<ISpectralDiagnostic[]> {
  return spectral.run(new Document(JSON.stringify(document, null, 2), JsonParser, DOCUMENT));
}

const describeFindings = (findings: ISpectralDiagnostic[]) =>
  findings.map((f) => `${SEVERITY[f.severity]} ${f.code} at ${f.path.join('.')}: ${f.message}`).join('\n');
const errors = (findings: ISpectralDiagnostic[]) => findings.filter((f) => f.severity === 0);

describe('Spectral (spectral:oas and OWASP, .spectral.js) on openapi.json', () => {
  it('reports no error', async () => {
    const findings = await lint(committed());
    const found = errors(findings);
    expect(found, `Spectral errors:\n${describeFindings(found)}`).toEqual([]);
    // What is left are warnings about the public operational routes (health checks, JWKS): by design.
    const warnings = findings.filter((f) => f.severity === 1);
    expect(
      warnings.map((f) => f.code).every((code) => code === 'owasp:api2:2023-read-restricted'),
      describeFindings(warnings),
    ).toBe(true);
  });

  it('the narrowed rules still catch what they are for', async () => {
    const doc = committed();
    const me = doc.paths['/v1/me'].get;
    delete me.responses['200'].headers['RateLimit-Limit'];
    delete me.responses['401'].headers['Access-Control-Allow-Origin'];
    const body = doc.paths['/v1/projects'].post.requestBody.content['application/json'].schema;
    delete body.properties.description.maxLength;
    doc.paths['/v1/projects'].get.parameters.push({ in: 'query', name: 'page', schema: { type: 'integer' } });
    doc.paths['/v1/projects'].get.parameters.push({ in: 'query', name: 'access_token', schema: { type: 'string', maxLength: 10 } });
    doc.servers = [{ url: 'http://sightline.example.com', 'x-internal': false }];
    const found = errors(await lint(doc)).map((f) => `${f.code} ${f.path.join('.')}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'owasp:api4:2023-rate-limit paths./v1/me.get.responses.200.headers',
        'owasp:api8:2023-define-cors-origin paths./v1/me.get.responses.401.headers',
        'owasp:api4:2023-string-limit paths./v1/projects.post.requestBody.content.application/json.schema.properties.description',
        expect.stringMatching(/^owasp:api4:2023-integer-limit paths.\/v1\/projects.get.parameters.\d+.schema$/),
        expect.stringMatching(/^owasp:api4:2023-integer-format paths.\/v1\/projects.get.parameters.\d+.schema$/),
        expect.stringMatching(/^owasp:api2:2023-no-credentials-in-url paths.\/v1\/projects.get.parameters.\d+.name$/),
        'owasp:api8:2023-no-server-http servers.0.url',
      ]),
    );
  });
});
