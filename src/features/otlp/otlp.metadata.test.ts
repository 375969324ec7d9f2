import { describe, expect, it } from 'vitest';
import {
  inheritedMetadata,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  metadataOf as metadataWith,
  resourceMetadata,
  TRUNCATED_KEY,
} from './otlp.metadata.js';

type Attributes = Record<string, unknown>;
const metadataOf = (span: Attributes, resource: Attributes, skip?: (key: string) => boolean, scope?: Attributes) =>
  metadataWith(span, inheritedMetadata(resourceMetadata(resource, skip), scope));

describe('span attributes kept as metadata', () => {
  it('keeps span then resource attributes under their own names, the span winning, skipped keys left out', () => {
    const metadata = metadataOf(
      { 'gen_ai.request.temperature': 0.2, 'service.name': 'span-wins', 'user.id': 'u1' },
      { 'service.name': 'bot', 'host.name': 'h' },
      (key) => key === 'user.id',
    );
    expect(metadata).toEqual({ 'gen_ai.request.temperature': 0.2, 'service.name': 'span-wins', 'host.name': 'h' });
    expect(Object.keys(metadata)).toEqual(['gen_ai.request.temperature', 'service.name', 'host.name']);
  });

  it('cuts an overlong value with a marker, and says which', () => {
    const long = 'x'.repeat(MAX_METADATA_VALUE_LENGTH + 10);
    const list = Array.from({ length: 5000 }, (_, i) => i);
    const metadata = metadataOf({ long, list, short: 'ok', exact: 'y'.repeat(MAX_METADATA_VALUE_LENGTH) }, {});
    expect(metadata.long).toBe(`${'x'.repeat(MAX_METADATA_VALUE_LENGTH)} …[truncated]`);
    expect(String(metadata.list).startsWith('[0,1,2,')).toBe(true);
    expect(String(metadata.list).endsWith(' …[truncated]')).toBe(true);
    expect(metadata.exact).toHaveLength(MAX_METADATA_VALUE_LENGTH);
    expect(metadata[TRUNCATED_KEY]).toEqual({ values: ['long', 'list'], droppedKeys: 0 });
  });

  it('never leaves half a surrogate pair at the cut', () => {
    const text = `${'a'.repeat(MAX_METADATA_VALUE_LENGTH - 1)}😀😀`;
    const cut = metadataOf({ text }, {}).text as string;
    expect(cut).toBe(`${'a'.repeat(MAX_METADATA_VALUE_LENGTH - 1)} …[truncated]`);
  });

  it('keeps the first attributes up to the bound and counts the rest', () => {
    const many = Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS + 30 }, (_, i) => [`k${i}`, i]));
    const metadata = metadataOf(many, { extra: 1 });
    expect(Object.keys(metadata)).toHaveLength(MAX_METADATA_KEYS + 1);
    expect(metadata[`k${MAX_METADATA_KEYS - 1}`]).toBe(MAX_METADATA_KEYS - 1);
    expect(metadata[`k${MAX_METADATA_KEYS}`]).toBeUndefined();
    expect(metadata[TRUNCATED_KEY]).toEqual({ values: [], droppedKeys: 31 });
  });

  it('adds no marker when nothing was cut', () => {
    expect(metadataOf({ a: 1 }, { b: [1, 2] })).toEqual({ a: 1, b: [1, 2] });
  });

  it('inherits the scope over the resource as if spread after it, a key the span has hiding either', () => {
    const metadata = metadataOf({ a: 1, 'otel.scope.version': 's' }, { b: 2, 'otel.scope.name': 'r', c: 3 }, undefined, {
      'otel.scope.name': 'scope',
      'otel.scope.version': '1',
      d: 4,
    });
    expect(Object.entries(metadata)).toEqual([
      ['a', 1],
      ['otel.scope.version', 's'],
      ['b', 2],
      ['otel.scope.name', 'scope'],
      ['c', 3],
      ['d', 4],
    ]);
  });

  it('counts the inherited attributes past the bound without walking them for every span', () => {
    // Every read of the resource's attributes is counted: one walk of its keys, then at most the bound per span.
    let reads = 0;
    const attributes = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`r${i}`, `v${i}`]));
    const resource = new Proxy(attributes, {
      get: (target, key) => (reads++, Reflect.get(target, key)),
      getOwnPropertyDescriptor: (target, key) => (reads++, Reflect.getOwnPropertyDescriptor(target, key)),
      has: (target, key) => (reads++, Reflect.has(target, key)),
    });
    const inherited = inheritedMetadata(resourceMetadata(resource));
    const afterPreparing = reads;
    for (let i = 0; i < 2_000; i++) {
      const metadata = metadataWith({ r5: 'own', s: i }, inherited);
      expect(Object.keys(metadata)).toHaveLength(MAX_METADATA_KEYS + 1);
      expect(metadata.r5).toBe('own');
      expect(metadata[TRUNCATED_KEY]).toEqual({ values: [], droppedKeys: 2 + 100_000 - 1 - MAX_METADATA_KEYS });
    }
    expect(afterPreparing).toBeLessThanOrEqual(100_000);
    // The kept values read once, and a look-up per key of each span (whether it hides the resource's).
    expect(reads - afterPreparing).toBeLessThanOrEqual(MAX_METADATA_KEYS + 2 * 2_000);
  });
});
