/**
 * The SSRF guard of outbound calls (docs/monitors-and-webhooks.md, Webhooks), as units: which addresses are private, in every spelling the
 * URL parser accepts; resolving a target; posting to it. The same guard at create, patch and delivery time:
 * src/features/monitors/webhooks.ssrf.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from './ip-address.js';
import { postJson, resolveTarget, TargetRefused, webhookUrlFault } from './webhook-target.js';
import { HOST_FAULT, PRIVATE_FAULT, startReceiver, type Receiver } from '../../test/helpers/webhooks.js';
import { freePort } from '../../test/helpers/services.js';

/** Non-public IPv4 networks (a sample of the guard's list), as [first address, prefix length]. */
const PRIVATE_V4: [number, number][] = [
  [0x7f000000, 8], // loopback
  [0x0a000000, 8],
  [0xac100000, 12],
  [0xc0a80000, 16],
  [0xa9fe0000, 16], // link-local, cloud metadata
  [0x64400000, 10], // carrier-grade NAT
  [0x00000000, 8],
];
const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');

/** A non-public IPv4 address: [dotted form, 32-bit value]. */
const privateIpv4 = fc.tuple(fc.constantFrom(...PRIVATE_V4), fc.nat()).map(([[base, prefix], n]) => {
  const value = (base + (prefix === 32 ? 0 : n % 2 ** (32 - prefix))) >>> 0;
  return [dotted(value), value] as const;
});

/** The spellings of an IPv4 address the WHATWG URL parser accepts: decimal, octal, hex, per part, and shortened to 3, 2 or 1 parts. */
const ipv4Spelling = fc
  .tuple(fc.constantFrom(1, 2, 3, 4), fc.array(fc.constantFrom('dec', 'oct', 'hex'), { minLength: 4, maxLength: 4 }))
  .map(([parts, radixes]) => (value: number) => {
    const bytes = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
    // The last part carries all the remaining bytes.
    const numbers = [...bytes.slice(0, parts - 1), bytes.slice(parts - 1).reduce((n, b) => n * 256 + b, 0)];
    const spell = (n: number, radix: string) => (radix === 'hex' ? `0x${n.toString(16)}` : radix === 'oct' ? `0${n.toString(8)}` : String(n));
    return numbers.map((n, i) => spell(n, radixes[i]!)).join('.');
  });

/** IPv6 literals that carry a non-public IPv4 address (mapped, compatible, NAT64) or are loopback itself. */
const ipv6Embedding = fc.constantFrom(
  (v: number) => `::ffff:${dotted(v)}`,
  (v: number) => `::ffff:${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`,
  (v: number) => `0:0:0:0:0:ffff:${dotted(v)}`,
  (v: number) => `::${dotted(v)}`,
  (v: number) => `64:ff9b::${dotted(v)}`,
  () => '::1',
  () => '0:0:0:0:0:0:0:1',
  () => '0000:0000:0000:0000:0000:0000:0000:0001',
  () => '::0:1',
);

describe('webhook-target', () => {
  describe('isPrivateAddress', () => {
    const cases: [string, boolean][] = [
      // Public.
      ['8.8.8.8', false],
      ['1.1.1.1', false],
      ['93.184.216.34', false],
      ['172.32.0.1', false], // just past 172.16/12
      ['100.128.0.1', false], // just past 100.64/10
      ['192.169.0.1', false],
      ['11.0.0.1', false],
      ['2606:4700:4700::1111', false],
      ['2001:4860:4860::8888', false],
      ['::ffff:8.8.8.8', false],
      ['::ffff:808:808', false],
      // Private, loopback, link-local, reserved.
      ['127.0.0.1', true],
      ['127.255.255.254', true],
      ['10.0.0.1', true],
      ['10.255.255.255', true],
      ['172.16.0.1', true],
      ['172.31.255.255', true],
      ['192.168.1.1', true],
      ['169.254.169.254', true],
      ['100.64.0.1', true],
      ['0.0.0.0', true],
      ['224.0.0.1', true],
      ['255.255.255.255', true],
      ['192.0.2.1', true],
      ['::1', true],
      ['::', true],
      ['0:0:0:0:0:0:0:1', true],
      ['fe80::1', true],
      ['FE80::1', true],
      ['fc00::1', true],
      ['fd12:3456::1', true],
      ['ff02::1', true],
      ['2001:db8::1', true],
      ['::ffff:127.0.0.1', true],
      ['::ffff:7f00:1', true], // the same, in hex
      ['0:0:0:0:0:ffff:7f00:1', true],
      ['::ffff:10.0.0.1', true],
      ['::ffff:169.254.169.254', true],
      ['64:ff9b::7f00:1', true], // NAT64 of 127.0.0.1
      ['2002:7f00:1::', true], // 6to4 of 127.0.0.1
      // Not an address at all: refused.
      ['localhost', true],
      ['', true],
    ];
    for (const [address, expected] of cases) {
      it(`${address || '(empty)'} → ${expected ? 'private' : 'public'}`, () => {
        expect(isPrivateAddress(address)).toBe(expected);
      });
    }
  });

  describe('webhookUrlFault', () => {
    it('takes a public name with one trailing dot (a fully qualified name) and refuses it with two', () => {
      expect(webhookUrlFault('https://hooks.example.com./x', false)).toBeNull();
      expect(webhookUrlFault('https://hooks.example.com../x', false)).toBe(HOST_FAULT);
      // Empty labels are refused even where private targets are allowed: they name no host at all.
      expect(webhookUrlFault('http://localhost..:8080/', true)).toBe(HOST_FAULT);
      expect(webhookUrlFault('http://localhost.:8080/', true)).toBeNull();
    });

    it('property: a private IPv4 address in any spelling the URL parser accepts is refused; with two or more trailing dots, as no host', () => {
      fc.assert(
        fc.property(privateIpv4, ipv4Spelling, fc.nat({ max: 4 }), fc.boolean(), ([address, value], spell, dots, upper) => {
          let host = spell(value) + '.'.repeat(dots);
          if (upper) host = host.toUpperCase();
          const fault = webhookUrlFault(`http://${host}:8080/hook`, false);
          expect(fault, `${host} (${address})`).toBe(dots <= 1 ? PRIVATE_FAULT : HOST_FAULT);
        }),
        { numRuns: 1000 },
      );
    });

    it('property: localhost and its subdomains, in any case, with any number of trailing dots, are refused', () => {
      // Not `xn--…`: such a label is punycode, and the URL parser refuses invalid punycode (no URL at all).
      const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/).filter((l) => !l.startsWith('xn--'));
      const name = fc.tuple(fc.array(label, { maxLength: 3 }), fc.nat({ max: 5 }), fc.boolean(), fc.constantFrom('.', '%2e', '\u3002'));
      fc.assert(
        fc.property(name, ([subdomains, dots, upper, dot]) => {
          let host = [...subdomains, 'localhost'].join('.') + dot.repeat(dots);
          if (upper) host = host.toUpperCase();
          const fault = webhookUrlFault(`http://${host}/`, false);
          expect(fault, host).toBe(dots <= 1 ? PRIVATE_FAULT : HOST_FAULT);
        }),
        { numRuns: 500 },
      );
    });

    it('property: loopback, mapped and NAT64 IPv6 literals in any spelling are refused', () => {
      fc.assert(
        fc.property(privateIpv4, ipv6Embedding, fc.boolean(), ([, value], embed, upper) => {
          let host = embed(value);
          if (upper) host = host.toUpperCase();
          expect(webhookUrlFault(`http://[${host}]:8080/`, false), host).toBe(PRIVATE_FAULT);
        }),
        { numRuns: 500 },
      );
    });

    it('property: a public name is taken with at most one trailing dot, and refused with an empty label anywhere', () => {
      const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/).filter((l) => !l.startsWith('xn--'));
      const name = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('example.com', 'hooks.example.org'));
      fc.assert(
        fc.property(name, fc.nat({ max: 3 }), fc.nat({ max: 4 }), ([labels, domain], dots, at) => {
          const good = [...labels, domain].join('.');
          expect(webhookUrlFault(`https://${good}${'.'.repeat(Math.min(dots, 1))}/x`, false), good).toBeNull();
          const parts = good.split('.');
          parts.splice(Math.min(at, parts.length - 1), 0, ''); // before a label: a leading or a doubled dot
          const bad = parts.join('.');
          expect(webhookUrlFault(`https://${bad}/x`, false), bad).toBe(HOST_FAULT);
          expect(webhookUrlFault(`https://${good}${'.'.repeat(dots + 2)}/x`, false), good).toBe(HOST_FAULT);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('resolveTarget', () => {
    it('refuses a name that resolves to loopback (through /etc/hosts) unless private targets are allowed', async () => {
      const refused = resolveTarget(new URL('http://localhost:1/'), false);
      await expect(refused).rejects.toBeInstanceOf(TargetRefused);
      await expect(refused).rejects.toThrow(/non-public address/);
      const allowed = await resolveTarget(new URL('http://localhost:1/'), true);
      expect(isPrivateAddress(allowed.address)).toBe(true);
      expect([4, 6]).toContain(allowed.family);
    });

    it('takes IP literals as they are (no DNS): public ones pass, private ones are refused', async () => {
      expect(await resolveTarget(new URL('http://8.8.8.8/'), false)).toEqual({ address: '8.8.8.8', family: 4 });
      expect(await resolveTarget(new URL('http://[2606:4700:4700::1111]/'), false)).toEqual({ address: '2606:4700:4700::1111', family: 6 });
      await expect(resolveTarget(new URL('http://169.254.169.254/'), false)).rejects.toBeInstanceOf(TargetRefused);
      await expect(resolveTarget(new URL('http://[::ffff:127.0.0.1]/'), false)).rejects.toBeInstanceOf(TargetRefused);
      expect(await resolveTarget(new URL('http://127.0.0.1/'), true)).toEqual({ address: '127.0.0.1', family: 4 });
    });
  });

  describe('postJson', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
    });

    it('refuses a loopback target when private targets are not allowed, sending nothing', async () => {
      const port = Number(new URL(receiver.url('/')).port);
      for (const url of [`http://localhost:${port}/`, `http://127.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`]) {
        await expect(postJson(url, '{}', {}, { timeoutMs: 1000, allowPrivate: false }), url).rejects.toBeInstanceOf(TargetRefused);
      }
      expect(receiver.requests).toEqual([]);
    });

    it('POSTs the body and headers when allowed, and resolves with the status (no redirects followed)', async () => {
      receiver.respond = (r) => (r.path === '/moved' ? 302 : r.path === '/teapot' ? 418 : 200);
      expect(await postJson(receiver.url('/ok'), '{"a":1}', { 'x-test': 'yes' }, { timeoutMs: 1000, allowPrivate: true })).toEqual({ status: 200 });
      const [request] = receiver.at('/ok');
      expect(request).toMatchObject({ method: 'POST', body: '{"a":1}' });
      expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'content-length': '7', 'x-test': 'yes' });
      expect(await postJson(receiver.url('/teapot'), '{}', {}, { timeoutMs: 1000, allowPrivate: true })).toEqual({ status: 418 });
      expect(await postJson(receiver.url('/moved'), '{}', {}, { timeoutMs: 1000, allowPrivate: true })).toEqual({ status: 302 });
      expect(receiver.requests.map((r) => r.path)).toEqual(['/ok', '/teapot', '/moved']);
    });

    it('rejects (not TargetRefused) when nothing listens', async () => {
      const port = await freePort();
      const failed = postJson(`http://127.0.0.1:${port}/`, '{}', {}, { timeoutMs: 1000, allowPrivate: true });
      await expect(failed).rejects.toThrow();
      await expect(failed).rejects.not.toBeInstanceOf(TargetRefused);
    });
  });
});
