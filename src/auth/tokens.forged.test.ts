/** Forged and malformed JWTs, each presented with a token row that would accept it: only the JWT checks refuse them. */
import { describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { PUBLIC_URL } from '../../test/helpers/harness.js';
import { b64url, craftToken, decodePayload, expectUnauthorized, nowSeconds } from '../../test/helpers/auth.js';
import { describeAttacks, flipSignature, without } from './tokens.test-support.js';

describeAttacks((_ctx, { claims, header, real, attacker, present }, k) => {
  describe('forged and malformed JWTs (each has a token row that would accept it)', () => {
    const cases: { name: string; reason?: 'token_expired' | 'token_for_other_url'; make: () => Promise<string> }[] = [
      // alg confusion
      { name: 'alg "none", empty signature', make: () => craftToken(header({ alg: 'none' }), claims(), { alg: 'none' }) },
      { name: 'alg "none" with a signature segment', make: () => craftToken(header({ alg: 'none' }), claims(), { alg: 'none', signature: 'AAAA' }) },
      { name: 'alg "none" signed with the real key', make: async () => craftToken(header({ alg: 'none' }), claims(), real()) },
      { name: 'alg "None"', make: () => craftToken(header({ alg: 'None' }), claims(), { alg: 'none', signature: 'AAAA' }) },
      { name: 'alg missing', make: () => craftToken(without(header(), 'alg'), claims(), real()) },
      {
        name: 'HS256 keyed with the published JWK (JSON text)',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: JSON.stringify(k.publishedJwk) }),
      },
      { name: 'HS256 keyed with the JWKS document text', make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: k.jwksText }) },
      {
        name: 'HS256 keyed with the public key as PEM/SPKI',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: k.publishedPem }),
      },
      {
        name: 'HS256 keyed with the PEM without its final newline',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: k.publishedPem.trim() }),
      },
      {
        name: 'HS256 keyed with the public point x',
        make: () => craftToken(header({ alg: 'HS256' }), claims(), { alg: 'HS256', secret: Buffer.from(k.publishedJwk.x!, 'base64url') }),
      },
      {
        name: 'RS256 with an attacker RSA key and the service kid',
        make: () => craftToken(header({ alg: 'RS256' }), claims(), { alg: 'RS256', key: k.rsaKey }),
      },
      // wrong key
      { name: "ES256 with an attacker's key and the service kid", make: () => craftToken(header(), claims(), attacker()) },
      { name: 'embedded jwk header (attacker key, no kid)', make: () => craftToken(without(header({ jwk: k.attackerJwk }), 'kid'), claims(), attacker()) },
      { name: 'embedded jwk header (attacker key) with the service kid', make: () => craftToken(header({ jwk: k.attackerJwk }), claims(), attacker()) },
      { name: 'jku header pointing at an attacker JWKS', make: () => craftToken(header({ jku: 'https://attacker.example/jwks.json' }), claims(), attacker()) },
      {
        name: 'x5u header pointing at an attacker certificate',
        make: () => craftToken(header({ x5u: 'https://attacker.example/cert.pem' }), claims(), attacker()),
      },
      // kid injection
      { name: 'kid "../../etc/passwd"', make: () => craftToken(header({ kid: '../../etc/passwd' }), claims(), real()) },
      { name: 'kid with an SQL quote', make: () => craftToken(header({ kid: "key_' OR '1'='1" }), claims(), real()) },
      { name: 'kid of the service key followed by SQL', make: () => craftToken(header({ kid: `${k.kid}' --` }), claims(), real()) },
      { name: 'an unknown, well-formed kid', make: () => craftToken(header({ kid: 'key_00000000000000000000000000' }), claims(), real()) },
      { name: 'the kid of the cursor key', make: () => craftToken(header({ kid: k.cursorKid }), claims(), real()) },
      { name: 'kid missing', make: () => craftToken(without(header(), 'kid'), claims(), real()) },
      { name: 'kid as a number', make: () => craftToken(header({ kid: 1 }), claims(), real()) },
      { name: 'kid as an object', make: () => craftToken(header({ kid: { $ne: null } }), claims(), real()) },
      // time
      {
        name: 'expired (exp in the past)',
        reason: 'token_expired',
        make: () => craftToken(header(), claims({ iat: nowSeconds() - 7200, nbf: nowSeconds() - 7200, exp: nowSeconds() - 60 }), real()),
      },
      { name: 'nbf in the future', make: () => craftToken(header(), claims({ nbf: nowSeconds() + 3600 }), real()) },
      // issuer and audience
      { name: 'wrong iss', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ iss: 'https://attacker.example' }), real()) },
      { name: 'iss with a trailing slash', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ iss: `${PUBLIC_URL}/` }), real()) },
      { name: 'iss missing', make: () => craftToken(header(), without(claims(), 'iss'), real()) },
      { name: 'wrong aud', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ aud: 'https://attacker.example/v1' }), real()) },
      { name: 'aud of the bare public URL', reason: 'token_for_other_url', make: () => craftToken(header(), claims({ aud: PUBLIC_URL }), real()) },
      { name: 'aud missing', make: () => craftToken(header(), without(claims(), 'aud'), real()) },
      {
        name: 'aud as a list without the API',
        reason: 'token_for_other_url',
        make: () => craftToken(header(), claims({ aud: ['https://attacker.example/v1'] }), real()),
      },
      // typ
      { name: 'typ "JWT"', make: () => craftToken(header({ typ: 'JWT' }), claims(), real()) },
      { name: 'typ "at+jwt"', make: () => craftToken(header({ typ: 'at+jwt' }), claims(), real()) },
      { name: 'typ missing', make: () => craftToken(without(header(), 'typ'), claims(), real()) },
      // required claims and their types
      { name: 'jti missing', make: () => craftToken(header(), without(claims(), 'jti'), real()) },
      { name: 'sub missing', make: () => craftToken(header(), without(claims(), 'sub'), real()) },
      { name: 'exp missing', make: () => craftToken(header(), without(claims(), 'exp'), real()) },
      { name: 'org missing', make: () => craftToken(header(), without(claims(), 'org'), real()) },
      { name: 'exp as a string', make: () => craftToken(header(), claims({ exp: String(nowSeconds() + 3600) }), real()) },
      { name: 'sub as a number', make: () => craftToken(header(), claims({ sub: 42 }), real()) },
      { name: 'org as a number', make: () => craftToken(header(), claims({ org: 42 }), real()) },
      { name: 'jti as an object', make: () => craftToken(header(), claims({ jti: { $gt: '' } }), real()) },
      // tampering
      {
        name: 'tampered payload (a claim changed, signature kept)',
        make: async () => {
          const signed = await craftToken(header(), claims(), real());
          const [h, , s] = signed.split('.');
          return `${h}.${b64url(JSON.stringify(claims({ exp: nowSeconds() + 10 * 365 * 86400 })))}.${s}`;
        },
      },
      {
        name: "the victim's real token with its sub changed to the owner's (and a fresh jti)",
        make: async () => {
          const [h, , s] = k.victim.token.split('.');
          return `${h}.${b64url(JSON.stringify({ ...decodePayload(k.victim.token), sub: k.colleague.userId, jti: newId('tok') }))}.${s}`;
        },
      },
      { name: 'tampered signature (one bit flipped)', make: async () => flipSignature(await craftToken(header(), claims(), real())) },
      { name: 'signature of the wrong length', make: async () => `${(await craftToken(header(), claims(), real())).slice(0, -10)}` },
      // what makes the JWT library itself throw
      { name: 'header segment is base64url but not JSON', make: () => craftToken({ raw: 'not json at all' }, claims(), real()) },
      { name: 'header segment is a JSON array', make: () => craftToken(['ES256', k.kid], claims(), real()) },
      { name: 'header segment is JSON null', make: () => craftToken({ raw: 'null' }, claims(), real()) },
      { name: 'header segment of an invalid base64url length', make: async () => `e.${b64url(JSON.stringify(claims()))}.AAAA` },
      { name: 'payload is a JSON array (validly signed)', make: () => craftToken(header(), [claims()], real()) },
      { name: 'payload is a JSON string (validly signed)', make: () => craftToken(header(), { raw: '"hello"' }, real()) },
      { name: 'payload is not JSON (validly signed)', make: () => craftToken(header(), { raw: '{"sub": ' }, real()) },
      { name: 'payload is empty (validly signed)', make: () => craftToken(header(), { raw: '' }, real()) },
      { name: 'unknown critical header (validly signed)', make: () => craftToken(header({ crit: ['exp'], exp: 1 }), claims(), real()) },
      { name: 'crit that is not an array (validly signed)', make: () => craftToken(header({ crit: 'b64' }), claims(), real()) },
      { name: 'unencoded payload (b64: false, validly signed)', make: () => craftToken(header({ b64: false, crit: ['b64'] }), claims(), real()) },
    ];

    for (const c of cases) {
      it(`${c.name}: 401 ${c.reason ?? 'invalid_token'}`, async () => {
        const token = await c.make();
        const res = await present(token);
        const body = expectUnauthorized(res, c.reason ?? 'invalid_token', token);
        if (c.reason === 'token_for_other_url') expect(body.detail).toMatch(/^The bearer token was issued for another public URL of this service/);
      });
    }
  });
});
