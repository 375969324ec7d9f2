import { afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, expectProblem, type Caller } from '../../../test/helpers/harness.js';
import { ok } from '../../../test/helpers/json.js';
import { begin, clock, helpers, HOUR } from './webhooks.test-support.js';
import { CREDENTIALS_FAULT, EMBEDDED_PRIVATE, EMBEDDED_PUBLIC, HOST_FAULT, PRIVATE_FAULT, startReceiver, URL_FAULT } from '../../../test/helpers/webhooks.js';

/** The SSRF guard on monitor webhooks (the default: private targets refused), at create, patch and delivery time. */

/** URLs refused at create and patch, with the fault each gets. */
const REFUSED: [string, string][] = [
  ['http://127.0.0.1:9/x', PRIVATE_FAULT],
  ['http://localhost/x', PRIVATE_FAULT],
  ['http://localhost./x', PRIVATE_FAULT], // the same name, fully qualified
  ['http://foo.localhost/x', PRIVATE_FAULT],
  ['http://[::1]/x', PRIVATE_FAULT],
  ['http://169.254.169.254/latest/meta-data', PRIVATE_FAULT],
  ['http://10.0.0.1/', PRIVATE_FAULT],
  ['http://172.16.0.1/', PRIVATE_FAULT],
  ['http://192.168.1.1/', PRIVATE_FAULT],
  ['http://[::ffff:127.0.0.1]/', PRIVATE_FAULT],
  ['http://[fd00::1]/', PRIVATE_FAULT],
  ['http://0.0.0.0/', PRIVATE_FAULT],
  ['http://0x7f000001/', PRIVATE_FAULT], // 127.0.0.1 in another spelling
  ['http://intranet/', PRIVATE_FAULT], // a single label resolves through the search domains
  // Other spellings of loopback that the URL parser turns into the address, or that end in one dot.
  ['http://LOCALHOST./x', PRIVATE_FAULT],
  ['http://127.0.0.1./x', PRIVATE_FAULT],
  ['http://127.1/', PRIVATE_FAULT],
  ['http://0x7f.1/', PRIVATE_FAULT],
  ['http://0x7f.1./', PRIVATE_FAULT],
  ['http://2130706433/', PRIVATE_FAULT],
  ['http://0177.0.0.1/', PRIVATE_FAULT],
  ['http://0/', PRIVATE_FAULT],
  ['http://[0:0:0:0:0:0:0:1]/', PRIVATE_FAULT],
  ['http://[::ffff:7f00:1]/', PRIVATE_FAULT],
  ['http://[::127.0.0.1]/', PRIVATE_FAULT],
  ['http://[::ffff:169.254.169.254]/', PRIVATE_FAULT],
  ['http://[64:ff9b::127.0.0.1]/', PRIVATE_FAULT],
  // Every IPv6 form that carries a private IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo).
  ...EMBEDDED_PRIVATE.map(([address]): [string, string] => [`http://[${address}]:8080/hook`, PRIVATE_FAULT]),
  // Empty labels: more than the one trailing dot of a fully qualified name (the URL parser keeps them).
  ['http://localhost..:8080/x', HOST_FAULT],
  ['http://localhost...:8080/x', HOST_FAULT],
  ['http://LOCALHOST..:8080/x', HOST_FAULT],
  ['http://localhost%2e%2e/x', HOST_FAULT], // percent-encoded dots
  ['http://localhost\u3002\u3002/x', HOST_FAULT], // ideographic full stops, which the parser maps to dots
  ['http://foo.localhost../x', HOST_FAULT],
  ['http://.localhost/x', HOST_FAULT],
  ['http://127.0.0.1..:9/x', HOST_FAULT],
  ['http://0x7f.1../', HOST_FAULT],
  ['http://169.254.169.254../latest/meta-data', HOST_FAULT],
  ['http://hooks..example.com/', HOST_FAULT], // a public name, but not a name
  ['http://hooks.example.com../', HOST_FAULT],
  ['http://..:8080/', HOST_FAULT],
  ['ftp://example.com/', URL_FAULT],
  ['file:///etc/passwd', URL_FAULT],
  ['not a url', URL_FAULT],
  ['http://user:pw@example.com/', CREDENTIALS_FAULT],
];

describeEachDialect(
  'monitor webhooks: SSRF guard',
  (ctx) => {
    const h = helpers(ctx);
    let owner: Caller;
    let projectId: string;

    beforeAll(async () => {
      owner = await ctx.make.caller({ role: 'owner' });
      projectId = (await ctx.make.project(owner.organizationId)).id;
    });
    afterEach(async () => {
      await h.cleanUp();
    });

    /** Fillers put the bad URL at a varying index, so the pointer is checked, not assumed. */
    const withFillers = (bad: string, i: number) => [...Array.from({ length: i % 3 }, (_, k) => `https://hooks.example.com/filler-${k}`), bad];

    it('create refuses private, loopback, link-local, non-http and credentialed URLs: 400 naming /webhookUrls/<i>', async () => {
      begin();
      for (const [i, [bad, detail]] of REFUSED.entries()) {
        const res = await h.create(owner, projectId, {
          name: 'x',
          metric: 'count',
          window: '5m',
          threshold: { op: '<', value: 1 },
          webhookUrls: withFillers(bad, i),
        });
        const body = expectProblem(res, 400, 'validation');
        expect(body.errors, bad).toEqual([{ pointer: `/webhookUrls/${i % 3}`, detail }]);
      }
      // Two bad URLs: both named.
      const both = expectProblem(
        await h.create(owner, projectId, {
          name: 'x',
          metric: 'count',
          window: '5m',
          webhookUrls: ['http://10.0.0.1/', 'https://ok.example.com/', 'gopher://x'],
        }),
        400,
        'validation',
      );
      expect(both.errors).toEqual([
        { pointer: '/webhookUrls/0', detail: PRIVATE_FAULT },
        { pointer: '/webhookUrls/2', detail: URL_FAULT },
      ]);
      // Nothing was created.
      expect(ok(await h.get(owner, h.base(projectId))).items).toEqual([]);
    });

    it('create accepts a public https URL without contacting it', async () => {
      begin();
      const m = await h.alerting(owner, projectId, ['https://hooks.example.com/x']);
      expect(m.webhookUrls).toEqual(['https://hooks.example.com/x']);
      expect(m.state).toBe('alerting'); // a delivery is queued…
      expect(await h.attempts(owner, projectId, m.id)).toEqual([]); // …but nothing was attempted
    });

    it('create accepts IPv6 literals that carry a public IPv4 address, judged by it', async () => {
      begin();
      const urls = EMBEDDED_PUBLIC.map(([address]) => `http://[${address}]/hook`);
      for (let i = 0; i < urls.length; i += 5) {
        const m = await h.alerting(owner, projectId, urls.slice(i, i + 5)); // at most 5 a monitor
        expect(m.webhookUrls).toEqual(urls.slice(i, i + 5));
      }
    });

    it('patch refuses the same URLs and leaves the monitor unchanged', async () => {
      begin();
      const m = await h.alerting(owner, projectId, ['https://hooks.example.com/x']);
      for (const [i, [bad, detail]] of REFUSED.entries()) {
        const body = expectProblem(await h.patch(owner, projectId, m.id, { webhookUrls: withFillers(bad, i) }), 400, 'validation');
        expect(body.errors, bad).toEqual([{ pointer: `/webhookUrls/${i % 3}`, detail }]);
      }
      expect(ok(await h.get(owner, `${h.base(projectId)}/${m.id}`)).webhookUrls).toEqual(['https://hooks.example.com/x']);
      const patched = ok(await h.patch(owner, projectId, m.id, { webhookUrls: ['https://hooks.example.com/y', 'http://93.184.216.34/z'] }));
      expect(patched.webhookUrls).toEqual(['https://hooks.example.com/y', 'http://93.184.216.34/z']);
    });

    it('refuses a private target at delivery time: the attempt fails at once, is not retried, nothing is sent', async () => {
      begin();
      const receiver = await startReceiver();
      try {
        const m = await h.alerting(owner, projectId, ['https://hooks.example.com/x']);
        // A delivery queued for a loopback URL (as one accepted while the instance allowed private
        // targets would be): the create check cannot have caught it, the delivery-time check must.
        const target = receiver.url('/ssrf');
        const updated = await ctx.database.storage.db.updateTable('webhook_deliveries').set({ url: target }).where('monitor_id', '=', m.id).executeTakeFirst();
        expect(Number(updated.numUpdatedRows)).toBe(1);

        expect(await ctx.app.monitoring.deliverDue()).toBe(1);
        const [attempt, ...more] = await h.attempts(owner, projectId, m.id);
        expect(more).toEqual([]);
        expect(attempt).toMatchObject({ url: target, attempt: 1, outcome: 'failed', responseStatus: null, nextAttemptAt: null, error: PRIVATE_FAULT });
        clock.advance(HOUR);
        expect(await ctx.app.monitoring.deliverDue()).toBe(0);
        expect(receiver.requests).toEqual([]);
      } finally {
        await receiver.close();
      }
    });
  },
  { clock },
);
