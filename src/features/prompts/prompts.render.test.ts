import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { expectProblem } from '../../../test/helpers/harness.js';
import { ok } from '../../../test/helpers/json.js';
import { expectValidation } from '../../../test/helpers/problems.js';
import { describePrompts } from './prompts.test-support.js';

/** POST /v1/prompts/{ref}/render: a version filled with variables. */
describePrompts('render', (_ctx, h, s) => {
  it('renders the latest version by default, a version by number, or the version a label points at', async () => {
    const p = await h.prompt(s.owner, { template: 'v1: {{name}}' });
    ok(await h.addVersion(s.owner, p.id, { template: 'v2: {{name}}!' }), 201);
    ok(await h.putLabel(s.owner, p.id, 'production', 1));
    const latest = ok(await h.render(s.owner, p.id, { variables: { name: 'Ada' } }));
    expect(latest).toEqual({ template: 'v2: {{name}}!', rendered: 'v2: Ada!' });
    expect(ok(await h.render(s.owner, p.name, { version: 1, variables: { name: 'Ada' } }))).toEqual({ template: 'v1: {{name}}', rendered: 'v1: Ada' });
    expect(ok(await h.render(s.owner, p.id, { label: 'production', variables: { name: 'Bob' } }))).toEqual({ template: 'v1: {{name}}', rendered: 'v1: Bob' });
    // A version or label that does not exist is a fault of the body, named like every other.
    expect(expectProblem(await h.render(s.owner, p.id, { version: 3, variables: { name: 'x' } }), 400, 'validation').errors).toEqual([
      { pointer: '/version', detail: 'Version 3 does not exist on this prompt.' },
    ]);
    expect(expectProblem(await h.render(s.owner, p.id, { label: 'staging', variables: { name: 'x' } }), 400, 'validation').errors).toEqual([
      { pointer: '/label', detail: 'Label staging does not exist on this prompt.' },
    ]);
  });

  it('refuses version and label together (400)', async () => {
    const p = await h.prompt(s.owner);
    ok(await h.putLabel(s.owner, p.id, 'production', 1));
    expectValidation(await h.render(s.owner, p.id, { version: 1, label: 'production', variables: { name: 'x' } }));
  });

  it('fills every occurrence, with whitespace inside braces; numbers and booleans rendered as text; values are not re-expanded', async () => {
    const p = await h.prompt(s.owner, { template: '{{ who }} x{{n}} {{flag}} {{zero}} {{f}} {{who}} {{s}}' });
    const r = ok(await h.render(s.owner, p.id, { variables: { who: 'Ada', n: 3, flag: false, zero: 0, f: 1.5, s: '{{who}}' } }));
    expect(r.rendered).toBe('Ada x3 false 0 1.5 Ada {{who}}');
    const empty = await h.prompt(s.owner, { template: 'no variables' });
    expect(ok(await h.render(s.owner, empty.id, { variables: {} })).rendered).toBe('no variables');
  });

  it('renders chat templates message by message', async () => {
    const template = [
      { role: 'system', content: 'You help {{customer}}.' },
      { role: 'user', content: '{{question}} — {{customer}}' },
      { role: 'assistant', content: 'Plain.' },
    ];
    const p = await h.prompt(s.owner, { template });
    const r = ok(await h.render(s.owner, p.id, { variables: { customer: 'Ada', question: 'Where?' } }));
    expect(r.template).toEqual(template);
    expect(r.rendered).toEqual([
      { role: 'system', content: 'You help Ada.' },
      { role: 'user', content: 'Where? — Ada' },
      { role: 'assistant', content: 'Plain.' },
    ]);
  });

  it('refuses missing and unknown variables with a 400 naming each at /variables/<name>', async () => {
    const p = await h.prompt(s.owner, {
      template: [
        { role: 'system', content: '{{a}} {{b}}' },
        { role: 'user', content: '{{c}}' },
      ],
    });
    const pointers = (res: LightMyRequestResponse) =>
      expectValidation(res)
        .map((e) => e.pointer)
        .sort();
    expect(pointers(await h.render(s.owner, p.id, { variables: {} }))).toEqual(['/variables/a', '/variables/b', '/variables/c']);
    expect(pointers(await h.render(s.owner, p.id, { variables: { a: 1, c: 'x' } }))).toEqual(['/variables/b']);
    expect(pointers(await h.render(s.owner, p.id, { variables: { a: 1, b: 2, c: 3, extra: 'x', more: true } }))).toEqual([
      '/variables/extra',
      '/variables/more',
    ]);
    expect(pointers(await h.render(s.owner, p.id, { variables: { b: 2, nope: 1 } }))).toEqual(['/variables/a', '/variables/c', '/variables/nope']);
    const res = await h.render(s.owner, p.id, { variables: { a: 1, b: 2 } });
    const errors = expectValidation(res);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.detail).toContain('c');
  });

  it('refuses malformed render bodies (400)', async () => {
    const p = await h.prompt(s.owner);
    for (const body of [
      {},
      { variables: 'x' },
      { variables: { name: null } },
      { variables: { name: { deep: 1 } } },
      { variables: { name: 'x' }, version: 0 },
      { variables: { name: 'x' }, label: '123' },
      { variables: { name: 'x' }, extra: 1 },
    ]) {
      expectValidation(await h.render(s.owner, p.id, body));
    }
  });
});
