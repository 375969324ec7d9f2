import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './json.js';
import { contentHash, sameContent } from './content-hash.js';

describe('run content hashes', () => {
  const run = { name: 'chat', kind: 'llm', startTime: '2026-11-24T00:00:00.000Z', inputs: { messages: [{ role: 'user', content: 'hi' }] } };
  const reordered = { inputs: { messages: [{ content: 'hi', role: 'user' }] }, startTime: run.startTime, kind: 'llm', name: 'chat' };
  const other = { ...run, name: 'chat 2' };

  it('are equal for equal content in any key order, and differ for other content', () => {
    expect(contentHash(reordered)).toBe(contentHash(run));
    expect(contentHash(other)).not.toBe(contentHash(run));
    expect(sameContent(contentHash(run), reordered, contentHash(reordered))).toBe(true);
    expect(sameContent(contentHash(run), other, contentHash(other))).toBe(false);
  });

  it('compare a run stored before them (a digest of its canonical JSON) the way it was stored', () => {
    const legacy = hash('sha256', canonicalJson(run), 'base64url');
    expect(sameContent(legacy, reordered, contentHash(reordered))).toBe(true);
    expect(sameContent(legacy, other, contentHash(other))).toBe(false);
  });
});
