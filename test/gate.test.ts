import { describe, expect, it } from 'vitest';
import { Gate } from '../src/lib/gate.js';

describe('Gate', () => {
  it('lets at most `size` holders in at once, in arrival order, and tolerates double releases', async () => {
    const gate = new Gate(2);
    const order: string[] = [];
    const r1 = await gate.acquire();
    const r2 = await gate.acquire();
    const third = gate.acquire().then((release) => {
      order.push('third');
      return release;
    });
    const fourth = gate.acquire().then((release) => {
      order.push('fourth');
      return release;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    r1();
    r1(); // a second release must not free another slot
    const r3 = await third;
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['third']);
    r2();
    const r4 = await fourth;
    expect(order).toEqual(['third', 'fourth']);
    r3();
    r4();
    const again = await Promise.race([gate.acquire(), new Promise((r) => setTimeout(() => r('blocked'), 50))]);
    expect(again).not.toBe('blocked');
  });
});
