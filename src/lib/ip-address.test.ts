/**
 * The SSRF guard's address judgement for IPv6 addresses that carry an IPv4 address (docs/monitors-and-webhooks.md, Webhooks):
 * every such form is judged by the IPv4 address, in any spelling, and the URL check agrees. The same
 * table at webhook and model connection creation: webhooks.ssrf.test.ts, model-connections.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMBEDDED_PRIVATE, EMBEDDED_PUBLIC, PRIVATE_FAULT } from '../../test/helpers/webhooks.js';
import { embeddedIpv4, isPrivateAddress } from './ip-address.js';
import { webhookUrlFault } from './webhook-target.js';

const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
const hex = (v: number) => `${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`;
const hexXor = (v: number) => hex((v ^ 0xffffffff) >>> 0);

/** Every form that carries one IPv4 address, spelled with it in hex or dotted (Teredo's server public: 65.54.227.120). */
const FORMS: [string, (v: number) => string][] = [
  ['IPv4-mapped, dotted', (v) => `::ffff:${dotted(v)}`],
  ['IPv4-mapped, hex', (v) => `::ffff:${hex(v)}`],
  ['IPv4-mapped, in full', (v) => `0000:0000:0000:0000:0000:FFFF:${hex(v)}`],
  ['IPv4-translated, hex', (v) => `::ffff:0:${hex(v)}`],
  ['IPv4-translated, dotted', (v) => `0:0:0:0:ffff:0:${dotted(v)}`],
  ['IPv4-compatible, dotted', (v) => `::${dotted(v)}`],
  ['IPv4-compatible, hex', (v) => `0::${hex(v)}`],
  ['NAT64, dotted', (v) => `64:ff9b::${dotted(v)}`],
  ['NAT64, hex', (v) => `64:FF9B:0:0:0:0:${hex(v)}`],
  ['6to4', (v) => `2002:${hex(v)}::1`],
  ['Teredo', (v) => `2001:0:4136:e378:8000:63bf:${hexXor(v)}`],
];

describe('isPrivateAddress: IPv6 addresses that carry an IPv4 address', () => {
  for (const [address, carried] of [...EMBEDDED_PRIVATE, ...EMBEDDED_PUBLIC]) {
    const isPrivate = EMBEDDED_PRIVATE.some(([a]) => a === address);
    it(`${address} carries ${carried.join(', ')} → ${isPrivate ? 'private' : 'public'}, as an address and as a URL's host`, () => {
      expect(embeddedIpv4(address)).toEqual(carried);
      expect(isPrivateAddress(address)).toBe(isPrivate);
      expect(isPrivateAddress(address.toUpperCase())).toBe(isPrivate);
      expect(webhookUrlFault(`http://[${address}]:8080/hook`, false)).toBe(isPrivate ? PRIVATE_FAULT : null);
    });
  }

  it('other IPv6 addresses carry none and are judged for themselves', () => {
    for (const [address, isPrivate] of [
      ['2606:4700:4700::1111', false],
      ['2001:4860:4860::8888', false], // not Teredo (2001:0::/32)
      ['2003:7f00:1::', false], // not 6to4
      ['64:ff9b:2::7f00:1', false], // neither NAT64 prefix
      ['fd00::1', true],
      ['fe80::1%eth0', true],
      ['ff02::1', true],
      ['2001:db8::1', true],
    ] as const) {
      expect(embeddedIpv4(address), address).toBeNull();
      expect(isPrivateAddress(address), address).toBe(isPrivate);
    }
  });

  it('property: each form, in each spelling, is judged as the IPv4 address it carries', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(...FORMS), fc.boolean(), (v, [form, embed], upper) => {
        const address = upper ? embed(v).toUpperCase() : embed(v);
        const expected = isPrivateAddress(dotted(v));
        expect(isPrivateAddress(address), `${form}: ${address} (${dotted(v)})`).toBe(expected);
        expect(webhookUrlFault(`https://[${address}]/x`, false), `${form}: ${address}`).toBe(expected ? PRIVATE_FAULT : null);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: private IPv4 addresses in every form are refused (the private ranges sampled, not the whole space)', () => {
    const privateV4 = fc
      .constantFrom(0x7f000000, 0x0a000000, 0xac100000, 0xc0a80000, 0xa9fe0000, 0x64400000, 0)
      .chain((base) => fc.integer({ min: 0, max: 0xffff }).map((n) => (base + n) >>> 0));
    fc.assert(
      fc.property(privateV4, fc.constantFrom(...FORMS), (v, [form, embed]) => {
        expect(isPrivateAddress(embed(v)), `${form}: ${embed(v)}`).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
