/**
 * The pagination contract (docs/api.md, Pagination), driven through every list endpoint.
 *
 * Each list endpoint is one descriptor in `listEndpoints` below: how to make a fresh parent whose
 * list is empty, how to put rows with chosen sort keys into it, how to add one through the public API,
 * how to remove one, and how to read an item's sort key and id. Every rule is then checked against
 * every descriptor, on every engine. A new list endpoint gets the whole suite by adding one descriptor.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from './helpers/harness.js';

import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  CURSOR_MALFORMED,
  BASE,
  SECOND,
  B64URL,
  type Row,
  type Parent,
  permutedKey,
  iso,
  requester,
  listEndpoints,
} from './pagination/endpoints.js';
import { qs, cursorParam, compareDesc, sortDesc, nextOf, expectMalformed, makeClient, expectCompleteWalk } from './pagination/walk.js';

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

const SIZES = [0, 1, 24, 25, 26, 50, 51];
/** Raw `limit` value → the limit the server must use and echo. */
const LIMITS: Array<{ raw: string | undefined; used: number }> = [
  { raw: undefined, used: DEFAULT_LIMIT },
  { raw: '1', used: 1 },
  { raw: '25', used: 25 },
  { raw: '100', used: 100 },
  { raw: '500', used: MAX_LIMIT },
  { raw: '101', used: MAX_LIMIT },
  { raw: '0', used: 1 },
  { raw: '-1', used: 1 },
  { raw: '-25', used: 1 },
];

/** Not integers, or not one value: each is a 400 validation problem naming `limit`. */
const BAD_LIMITS: Array<{ label: string; query: string }> = [
  ...['abc', '1.5', '1e2', '%205', '5%20', '0x10', '', 'Infinity', 'NaN', '-', 'true', '1%2C5', '25abc', '%EF%BC%95' /* fullwidth 5 */].map((raw) => ({
    label: `limit=${raw}`,
    query: `limit=${raw}`,
  })),
  { label: 'repeated limit=5&limit=6', query: 'limit=5&limit=6' },
  { label: 'repeated limit=5&limit=5', query: 'limit=5&limit=5' },
];

describeEachDialect(
  'pagination contract',
  (ctx) => {
    const send = requester(ctx);
    const { lists, runs, principal } = listEndpoints(ctx);
    const { getPage, walk } = makeClient(ctx);

    /** The cursor after the first page of `limit` rows (the list must hold more than that). */
    async function firstCursor(parent: Parent, filters = '', limit = 1, token?: string): Promise<string> {
      const page = await getPage(parent, qs(filters, `limit=${limit}`), token);
      const cursor = nextOf(page);
      expect(cursor, `${parent.path} ${filters}: a first page with more to come`).not.toBeNull();
      return cursor!;
    }

    for (const ep of lists) {
      describe(`${ep.name}`, () => {
        // ---------------------------------------------------------------- full walks
        for (const n of SIZES) {
          it(`walks ${n} rows completely, in order, at every limit (default, 1, 25, 100, over-max, 0, negative)`, async () => {
            const { parent, rows } = await ep.seed(n);
            for (const { raw, used } of LIMITS) {
              const pages = await walk(parent, { limit: () => raw });
              expectCompleteWalk(ep, pages, rows, used, `${ep.name} N=${n} limit=${raw ?? '(default)'}`);
            }
          });
        }

        it('accepts a different limit on every page of one walk', async () => {
          const { parent, rows } = await ep.seed(51);
          const raws = ['3', '10', '1', '25', '0', '7', '500', '2'];
          const used = [3, 10, 1, 25, 1, 7, 100, 2];
          const pages = await walk(parent, { limit: (i) => raws[i % raws.length] });
          pages.forEach((page, i) => {
            expect(page.limit).toBe(used[i % used.length]);
            if (nextOf(page) !== null) expect(page.items).toHaveLength(used[i % used.length]!);
          });
          expect(pages.flatMap((p) => p.items).map(ep.idOf)).toEqual(sortDesc(rows, ep.idsAscending).map((r) => r.id));
        });

        // ---------------------------------------------------------------- limit validation
        it('refuses a non-integer or repeated limit with a 400 validation problem', async () => {
          const { parent } = await ep.seed(2);
          for (const { label, query } of BAD_LIMITS) {
            for (const cursor of [null, await firstCursor(parent)]) {
              const res = await send('GET', `${parent.path}${qs(query, cursorParam(cursor))}`, { token: parent.principal.token });
              const body = expectProblem(res, 400, 'validation');
              expect(body.title, label).toBe('Validation failed');
              expect(body.errors, label).toEqual(expect.arrayContaining([expect.objectContaining({ parameter: 'limit' })]));
            }
          }
        });

        it("lists a junk cursor beside the query's other faults, and checks a real one once the rest is valid", async () => {
          const { parent } = await ep.seed(2);
          for (const junk of ['!!!', 'AAAA', 'x'.repeat(2000)]) {
            const res = await send('GET', `${parent.path}${qs('limit=abc&bogus=1', cursorParam(junk))}`, { token: parent.principal.token });
            const body = expectProblem(res, 400, 'validation', '3 problems with the request.');
            expect(body.errors).toEqual(
              expect.arrayContaining([
                expect.objectContaining({ parameter: 'limit' }),
                { parameter: 'bogus', detail: "Unknown field 'bogus'." },
                { parameter: 'cursor', detail: CURSOR_MALFORMED },
              ]),
            );
            expect(body.errors).toHaveLength(3);
          }
          // A well-formed cursor is bound to a valid query: with other faults only they are listed.
          const real = await firstCursor(parent);
          const res = await send('GET', `${parent.path}${qs('limit=abc', cursorParam(real))}`, { token: parent.principal.token });
          expect(expectProblem(res, 400, 'validation').errors).toEqual([expect.objectContaining({ parameter: 'limit' })]);
        });

        it('clamps every out-of-range integer to the nearest bound, however many digits it has', async () => {
          // "An integer outside the bounds is clamped to the nearest bound" (docs/api.md, Pagination).
          const { parent } = await ep.seed(2);
          const cases: Array<[raw: string, used: number]> = [
            ['999999999999999', MAX_LIMIT], // 15 digits
            ['9007199254740993', MAX_LIMIT], // 16 digits, above Number.MAX_SAFE_INTEGER
            ['99999999999999999999999', MAX_LIMIT],
            ['-999999999999999', 1],
            ['-99999999999999999999999', 1],
          ];
          const answers: Array<[string, number, unknown]> = [];
          for (const [raw] of cases) {
            const res = await send('GET', `${parent.path}?limit=${raw}`, { token: parent.principal.token });
            answers.push([raw, res.statusCode, res.statusCode === 200 ? res.json().limit : res.json().detail]);
          }
          expect(answers).toEqual(cases.map(([raw, used]) => [raw, 200, used]));
        });

        // ---------------------------------------------------------------- ties
        it('walks 200 rows with an identical sort key at limit 7, each exactly once', async () => {
          const { parent, rows } = await ep.seed(200, () => BASE);
          const pages = await walk(parent, { limit: () => '7' });
          expectCompleteWalk(ep, pages, rows, 7, `${ep.name} 200 ties`);
        });

        // ---------------------------------------------------------------- concurrent changes
        it('does not visit rows inserted at the head mid-walk; a restarted walk shows them', async () => {
          const { parent, rows } = await ep.seed(30);
          const added: Row[] = [];
          const pages = await walk(parent, {
            limit: () => '10',
            between: async (i) => {
              if (i === 0) {
                added.push(await ep.create(parent), await ep.create(parent));
                added.push(...(await ep.insert(parent, [BASE + 1_000_000 * SECOND])));
              }
              if (i === 1) added.push(await ep.create(parent));
            },
          });
          expect(added).toHaveLength(4);
          const seen = pages.flatMap((p) => p.items).map(ep.idOf);
          expect(seen, 'continuing sees exactly the rows that existed when the walk started').toEqual(sortDesc(rows, ep.idsAscending).map((r) => r.id));
          for (const row of added) expect(seen).not.toContain(row.id);

          const restarted = await walk(parent, { limit: () => '10' });
          expectCompleteWalk(ep, restarted, [...rows, ...added], 10, `${ep.name} restarted`);
          const head = restarted[0]!.items.slice(0, added.length).map(ep.idOf);
          expect(new Set(head)).toEqual(new Set(added.map((r) => r.id)));
        });

        for (const ties of [false, true]) {
          it(`continues correctly when the row under the cursor is deleted${ties ? ' (all sort keys equal)' : ''}`, async () => {
            const { parent, rows } = await ep.seed(30, ties ? () => BASE : permutedKey);
            const order = sortDesc(rows, ep.idsAscending);
            const deletedUnseen = new Set<string>();
            const deletedSeen = new Set<string>();
            const pages = await walk(parent, {
              limit: () => '7',
              between: async (i, page) => {
                // The row under the cursor: the last item of the page just read.
                const under = ep.idOf(page.items[page.items.length - 1]!);
                await ep.remove(parent, under);
                deletedSeen.add(under);
                if (i === 1) {
                  // Also the row right after the cursor, which the next page would have started with.
                  const next = order[(i + 1) * 7]!.id;
                  await ep.remove(parent, next);
                  deletedUnseen.add(next);
                }
              },
            });
            const seen = pages.flatMap((p) => p.items).map(ep.idOf);
            expect(new Set(seen).size, 'no duplicates').toBe(seen.length);
            expect(seen).toEqual(order.map((r) => r.id).filter((id) => !deletedUnseen.has(id)));
            expect(deletedSeen.size).toBeGreaterThan(2);
          });
        }

        it('property: random interleavings of inserts, deletes and page fetches never duplicate or skip a surviving row', async () => {
          const command = fc.oneof(
            { weight: 5, arbitrary: fc.record({ t: fc.constant('fetch' as const), limit: fc.integer({ min: 1, max: 6 }) }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('head' as const), n: fc.integer({ min: 1, max: 3 }) }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('middle' as const), at: fc.integer({ min: 0, max: 1000 }) }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), pick: fc.nat() }) },
            { weight: 2, arbitrary: fc.record({ t: fc.constant('deleteUnderCursor' as const) }) },
          );
          const scenario = fc.record({ initial: fc.integer({ min: 0, max: 20 }), ties: fc.boolean(), commands: fc.array(command, { maxLength: 20 }) });

          await fc.assert(
            fc.asyncProperty(scenario, async ({ initial, ties, commands }) => {
              const keys = Array.from({ length: initial }, (_, i) => BASE + (ties ? Math.floor(i / 3) : (i * 7) % Math.max(initial, 1)) * SECOND);
              const { parent, rows } = await ep.seed(initial, (i) => keys[i]!);
              const present = new Map(rows.map((r) => [r.id, r.key]));
              let maxKey = Math.max(BASE, ...keys);
              const st = { started: false, done: false, cursor: null as string | null, last: null as Row | null };
              const mustSee = new Set<string>();
              const mustNotSee = new Set<string>();
              const seen = new Map<string, number>();

              const fetch = async (limit: number) => {
                if (st.done) return;
                if (!st.started) {
                  st.started = true;
                  for (const id of present.keys()) mustSee.add(id);
                }
                const page = await getPage(parent, qs(`limit=${limit}`, cursorParam(st.cursor)));
                expect(page.limit).toBe(limit);
                for (const item of page.items) {
                  const row = { id: ep.idOf(item), key: ep.keyOf(item) };
                  expect(present.get(row.id), `listed row ${row.id} exists with its key`).toBe(row.key);
                  expect(mustNotSee.has(row.id), `row ${row.id} must not be visited`).toBe(false);
                  expect(seen.has(row.id), `row ${row.id} visited twice`).toBe(false);
                  if (st.last) expect(compareDesc(st.last, row, ep.idsAscending), 'the walk only moves forward').toBeLessThan(0);
                  seen.set(row.id, 1);
                  st.last = row;
                }
                st.cursor = nextOf(page);
                if (st.cursor === null) st.done = true;
                else expect(page.items).toHaveLength(limit);
              };
              const remove = async (id: string) => {
                await ep.remove(parent, id);
                present.delete(id);
                mustSee.delete(id);
                mustNotSee.add(id);
              };

              for (const cmd of commands) {
                if (cmd.t === 'fetch') await fetch(cmd.limit);
                else if (cmd.t === 'head') {
                  const headKeys = Array.from({ length: cmd.n }, (_, i) => maxKey + (i + 1) * SECOND);
                  maxKey = headKeys[headKeys.length - 1]!;
                  for (const row of await ep.insert(parent, headKeys)) {
                    present.set(row.id, row.key);
                    // Inserted at the head after the walk started: never visited by continuing (rule 3).
                    if (st.started) mustNotSee.add(row.id);
                  }
                } else if (cmd.t === 'middle') {
                  const key = BASE + Math.round(((maxKey - BASE) * cmd.at) / 1000 / SECOND) * SECOND;
                  for (const row of await ep.insert(parent, [key])) present.set(row.id, row.key);
                } else if (cmd.t === 'delete') {
                  const ids = [...present.keys()];
                  if (ids.length > 0) await remove(ids[cmd.pick % ids.length]!);
                } else if (st.last && present.has(st.last.id)) {
                  await remove(st.last.id);
                }
              }
              for (let guard = 0; !st.done; guard++) {
                expect(guard).toBeLessThan(200);
                await fetch(5);
              }
              for (const id of mustSee) expect(seen.has(id), `row ${id} present throughout was skipped`).toBe(true);
            }),
            { numRuns: 25 },
          );
        }, 120_000);

        // ---------------------------------------------------------------- malformed cursors
        it('answers every tampered, truncated, padded, oversized or random cursor with the one 400', async () => {
          const { parent } = await ep.seed(5);
          const real = await firstCursor(parent, '', 2);
          const bytes = Buffer.from(real, 'base64url');
          const bad = new Map<string, string>(); // label → cursor value (URL-encoded when sent)

          for (let i = 0; i < real.length; i++) {
            const at = B64URL.indexOf(real[i]!);
            expect(at, 'a cursor is base64url').toBeGreaterThanOrEqual(0);
            for (const shift of [1, 32]) {
              const flipped = real.slice(0, i) + B64URL[(at + shift) % 64] + real.slice(i + 1);
              bad.set(`flip ${i} by ${shift}`, flipped);
            }
          }
          for (const length of [
            1,
            2,
            3,
            4,
            8,
            16,
            22,
            23,
            24,
            32,
            44,
            Math.floor(real.length / 2),
            real.length - 22,
            real.length - 5,
            real.length - 4,
            real.length - 3,
            real.length - 2,
            real.length - 1,
          ]) {
            if (length > 0 && length < real.length) bad.set(`truncated to ${length}`, real.slice(0, length));
          }
          bad.set('first char dropped', real.slice(1));
          bad.set('first 4 chars dropped', real.slice(4));
          bad.set('extended by A', `${real}A`);
          bad.set('extended by AAAA', `${real}AAAA`);
          bad.set('doubled', real + real);
          bad.set('reversed', [...real].reverse().join(''));
          if (real.toUpperCase() !== real) bad.set('upper-cased', real.toUpperCase());
          if (real.toLowerCase() !== real) bad.set('lower-cased', real.toLowerCase());
          bad.set('padded =', `${real}=`);
          bad.set('padded ==', `${real}==`);
          bad.set('leading =', `=${real}`);
          // Identical to the real cursor when its bytes hold no '-'/'_' and need no padding: only then a distinct case.
          if (bytes.toString('base64') !== real) bad.set('standard base64 with padding', bytes.toString('base64'));
          bad.set('base64 alphabet +', `${real.slice(0, 10)}+${real.slice(11)}`);
          bad.set('base64 alphabet /', `${real.slice(0, 10)}/${real.slice(11)}`);
          for (const ch of ['.', ' ', '~', '*', '!', '\u00e9', '\u0000', '\n', '%', '\u{1F600}'])
            bad.set(`contains ${JSON.stringify(ch)}`, `${real.slice(0, 20)}${ch}${real.slice(20)}`);
          bad.set('trailing newline', `${real}\n`);
          bad.set('leading space', ` ${real}`);
          bad.set('10 KB of A', 'A'.repeat(10 * 1024));
          bad.set('10 KB of random base64url', randomBytes(7680).toString('base64url'));
          bad.set('real cursor repeated to 10 KB', real.repeat(Math.ceil(10_240 / real.length)));
          for (const size of [1, 2, 3, 16, 32, 33, 48, 64, bytes.length - 1, bytes.length, bytes.length + 1, 128, 256, 700]) {
            bad.set(`random ${size} bytes`, randomBytes(size).toString('base64url'));
          }
          // Random bodies behind the real version byte and key tag: well-formed framing, failing authentication.
          for (const size of [12 + 1 + 16, 12 + 40 + 16, bytes.length - 5, bytes.length - 4, 700]) {
            bad.set(`real header + ${size} random bytes`, Buffer.concat([bytes.subarray(0, 5), randomBytes(size)]).toString('base64url'));
          }
          // The real body under another version byte.
          for (const version of [0, 2, 255]) {
            const copy = Buffer.from(bytes);
            copy[0] = version;
            bad.set(`version byte ${version}`, copy.toString('base64url'));
          }
          for (const value of ['null', 'undefined', '0', '[]', '{}', 'true', 'eyJhbGciOiJub25lIn0', real.slice(0, 10)]) bad.set(`literal ${value}`, value);

          for (const [label, cursor] of bad) {
            expect(cursor, label).not.toBe(real);
            const res = await send('GET', `${parent.path}?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: parent.principal.token });
            expectMalformed(res, `${ep.name} ${label}`);
          }
          // Raw query spellings that cannot be produced by encoding a string.
          for (const raw of ['cursor=', 'cursor', 'cursor=%FF', 'cursor=%E9t%E9', 'cursor=%C3', 'cursor=+', `cursor=${real.slice(0, 30)}+${real.slice(31)}`]) {
            const res = await send('GET', `${parent.path}?limit=2&${raw}`, { token: parent.principal.token });
            expectMalformed(res, `${ep.name} raw ${raw.slice(0, 40)}`);
          }
          // The genuine cursor still works after all that.
          const page = await getPage(parent, qs('limit=2', cursorParam(real)));
          expect(page.items).toHaveLength(2);
        }, 60_000);

        // ---------------------------------------------------------------- cursors replayed elsewhere
        it("refuses a cursor replayed by another organization's caller on the same endpoint", async () => {
          const a = await ep.seed(3);
          const cursor = await firstCursor(a.parent);
          const b = await ep.seed(3);
          expectMalformed(
            await send('GET', `${b.parent.path}${qs('limit=1', cursorParam(cursor))}`, { token: b.parent.principal.token }),
            `${ep.name} other org`,
          );
          // The same user, signed in to another organization they belong to.
          const sameUser = await principal({ userId: a.parent.principal.userId });
          const elsewhere = await ep.fresh(sameUser);
          await ep.insert(elsewhere, [BASE, BASE + SECOND, BASE + 2 * SECOND]);
          expectMalformed(
            await send('GET', `${elsewhere.path}${qs('limit=1', cursorParam(cursor))}`, { token: sameUser.token }),
            `${ep.name} same user, other org`,
          );
          // Still valid where it came from.
          expect((await getPage(a.parent, qs('limit=1', cursorParam(cursor)))).items).toHaveLength(1);
        });

        if (ep.sibling) {
          it('refuses a cursor replayed on another parent of the same organization', async () => {
            const a = await ep.seed(3);
            const cursor = await firstCursor(a.parent);
            const other = await ep.sibling!(a.parent);
            await ep.insert(other, [BASE, BASE + SECOND, BASE + 2 * SECOND]);
            expectMalformed(await send('GET', `${other.path}${qs('limit=1', cursorParam(cursor))}`, { token: other.principal.token }), `${ep.name} sibling`);
          });
        }

        if (!ep.perUser) {
          it('lets another member of the same organization continue the same list', async () => {
            const { parent, rows } = await ep.seed(5);
            const cursor = await firstCursor(parent, '', 2);
            const viewer = await principal({ organizationId: parent.principal.organizationId, role: ep.adminOnly ? 'admin' : 'viewer' });
            const page = await getPage(parent, qs('limit=10', cursorParam(cursor)), viewer.token);
            expect(page.items.map(ep.idOf)).toEqual(
              sortDesc(rows, ep.idsAscending)
                .slice(2)
                .map((r) => r.id),
            );
          });
        }

        for (const { from, to } of ep.filterChanges) {
          it(`refuses a cursor taken with "${from}" replayed with "${to}"`, async () => {
            const { parent } = await ep.seed(4);
            const cursor = await firstCursor(parent, from);
            expectMalformed(
              await send('GET', `${parent.path}${qs(to, 'limit=1', cursorParam(cursor))}`, { token: parent.principal.token }),
              `${ep.name} ${from} → ${to}`,
            );
            expect((await getPage(parent, qs(from, 'limit=1', cursorParam(cursor)))).items).toHaveLength(1);
          });
        }

        for (const { from, to } of ep.filterEquivalents) {
          it(`keeps a cursor taken with "${from}" valid with the same filters spelled "${to}"`, async () => {
            const { parent, rows } = await ep.seed(4);
            const cursor = await firstCursor(parent, from);
            const page = await getPage(parent, qs(to, 'limit=10', cursorParam(cursor)));
            expect(page.items.map(ep.idOf)).toEqual(
              sortDesc(rows, ep.idsAscending)
                .slice(1)
                .map((r) => r.id),
            );
          });
        }
      });
    }

    it('refuses a cursor from every other list endpoint (each pair, one caller, one organization)', async () => {
      const who = await principal();
      const parents = new Map<string, Parent>();
      for (const ep of lists) {
        const parent = await ep.fresh(who);
        await ep.insert(parent, [BASE, BASE + SECOND, BASE + 2 * SECOND]);
        parents.set(ep.name, parent);
      }
      const cursors = new Map<string, string>();
      for (const ep of lists) cursors.set(ep.name, await firstCursor(parents.get(ep.name)!));
      for (const from of lists) {
        for (const to of lists) {
          const parent = parents.get(to.name)!;
          const res = await send('GET', `${parent.path}${qs('limit=1', cursorParam(cursors.get(from.name)))}`, { token: who.token });
          if (from === to) expect(res.statusCode, res.body).toBe(200);
          else expectMalformed(res, `${from.name} cursor on ${to.name}`);
        }
      }
    });

    // ------------------------------------------------------------------ runs-specific sort keys
    describe('runs sort keys', () => {
      it('a runs cursor of a project the caller cannot see is a 404, never a hint', async () => {
        const a = await runs.seed(3);
        const cursor = await firstCursor(a.parent);
        const stranger = await principal();
        expectProblem(await send('GET', `${a.parent.path}${qs('limit=1', cursorParam(cursor))}`, { token: stranger.token }), 404, 'not-found');
      });

      it('round-trips startTimes 1 ms apart exactly: limit 1 and 2 neither skip nor repeat', async () => {
        const keyAt = (i: number) => BASE + 123 + (i < 40 ? (i * 17) % 40 : (i % 7) * 3); // 40 distinct ms, then ties on some of them
        const { parent, rows } = await runs.seed(55, keyAt);
        for (const limit of [1, 2]) {
          const pages = await walk(parent, { limit: () => String(limit) });
          expectCompleteWalk(runs, pages, rows, limit, `1 ms apart, limit ${limit}`);
        }
      });

      it('round-trips sub-millisecond input precision: stored to the millisecond, walked at limit 1 without skips or repeats', async () => {
        const cases: Array<[input: string, stored: string]> = [
          ['2021-03-04T05:06:07.123456Z', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.123999Z', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.123Z', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.124Z', '2021-03-04T05:06:07.124Z'],
          ['2021-03-04T05:06:07.124001Z', '2021-03-04T05:06:07.124Z'],
          ['2021-03-04T05:06:07.122999999Z', '2021-03-04T05:06:07.122Z'],
          ['2021-03-04T05:06:07.1Z', '2021-03-04T05:06:07.100Z'],
          ['2021-03-04T05:06:07.12Z', '2021-03-04T05:06:07.120Z'],
          ['2021-03-04T05:06:07Z', '2021-03-04T05:06:07.000Z'],
          ['2021-03-04T05:06:07.000001Z', '2021-03-04T05:06:07.000Z'],
          ['2021-03-04T05:06:06.999999Z', '2021-03-04T05:06:06.999Z'],
          ['2021-03-04T06:06:07.123456+01:00', '2021-03-04T05:06:07.123Z'],
          ['2021-03-04T05:06:07.123500Z', '2021-03-04T05:06:07.123Z'],
          ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z'],
          ['1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z'],
          ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
        ];
        const parent = await runs.fresh();
        const ids = await ctx.make.runs(parent.projectId!, cases.length, (i) => ({ startTime: cases[i]![0] }));
        const rows = ids.map((id, i) => ({ id, key: Date.parse(cases[i]![1]) }));
        const pages = await walk(parent, { limit: () => '1' });
        expectCompleteWalk(runs, pages, rows, 1, 'sub-millisecond input');
        const stored = new Map(pages.flatMap((p) => p.items).map((item) => [item.id as string, item.startTime as string]));
        ids.forEach((id, i) => expect(stored.get(id), cases[i]![0]).toBe(cases[i]![1]));
      });

      it('breaks ties on client-chosen ids bytewise on both engines', async () => {
        const clientIds = [
          'a',
          'B',
          'b',
          'A',
          'Z',
          'z',
          '0',
          '9',
          'a-',
          'a_',
          'a.',
          'a:',
          'A-1',
          'aa',
          'a0',
          'aZ',
          'a-z',
          'run_x',
          'Run_x',
          'RUN_X',
          '1:2',
          '1.2',
          '1-2',
          '1_2',
        ];
        const parent = await runs.fresh();
        const ids = await ctx.make.runs(parent.projectId!, clientIds.length, (i) => ({ id: clientIds[i], startTime: iso(BASE) }));
        expect(ids).toEqual(clientIds);
        const rows = clientIds.map((id) => ({ id, key: BASE }));
        for (const limit of [1, 3]) {
          const pages = await walk(parent, { limit: () => String(limit) });
          expectCompleteWalk(runs, pages, rows, limit, `client ids, limit ${limit}`);
        }
      });
    });
  },
  // Private webhook targets allowed: the monitor deliveries list gets its new rows from a loopback receiver.
  { env: { SIGHTLINE_RATE_LIMIT: '10000000', SIGHTLINE_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
