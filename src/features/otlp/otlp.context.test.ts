import { describe, expect, it } from 'vitest';
import { MAX_CONTEXT_ID_LENGTH, projectNameOf, sessionOf, tagsOf, userOf } from './otlp.context.js';

describe('the context of a span', () => {
  const sessions: [string, Record<string, unknown>][] = [
    ['session.id (OpenInference, OTel)', { 'session.id': 's1' }],
    ['gen_ai.conversation.id', { 'gen_ai.conversation.id': 's1' }],
    ['langfuse.session.id', { 'langfuse.session.id': 's1' }],
    ['Vercel ai.telemetry.metadata.sessionId', { 'ai.telemetry.metadata.sessionId': 's1' }],
    ['OpenLLMetry traceloop.association.properties.session_id', { 'traceloop.association.properties.session_id': 's1' }],
  ];
  for (const [label, attributes] of sessions) it(`session from ${label}`, () => expect(sessionOf(attributes)).toBe('s1'));

  const users: [string, Record<string, unknown>][] = [
    ['user.id', { 'user.id': 'u1' }],
    ['enduser.id', { 'enduser.id': 'u1' }],
    ['langfuse.user.id', { 'langfuse.user.id': 'u1' }],
    ['Vercel ai.telemetry.metadata.userId', { 'ai.telemetry.metadata.userId': 'u1' }],
    ['OpenLLMetry traceloop.association.properties.user_id', { 'traceloop.association.properties.user_id': 'u1' }],
  ];
  for (const [label, attributes] of users) it(`user from ${label}`, () => expect(userOf(attributes)).toBe('u1'));

  it("falls back to what OpenInference's metadata object names, after every attribute (the resource's included)", () => {
    for (const key of ['session_id', 'sessionId', 'thread_id', 'conversation_id']) expect(sessionOf({}, {}, { [key]: 's2' })).toBe('s2');
    for (const key of ['user_id', 'userId']) expect(userOf({}, {}, { [key]: 'u2' })).toBe('u2');
    expect(sessionOf({ 'session.id': 's1' }, {}, { session_id: 's2' })).toBe('s1');
    expect(sessionOf({}, { 'session.id': 's0' }, { session_id: 's2' })).toBe('s0');
    expect(userOf({}, {}, { user_id: { nested: true } })).toBeNull();
    expect(sessionOf({}, {}, null)).toBeNull();
  });

  it('takes the first convention that names one, numbers as text, and cuts overlong ids', () => {
    expect(sessionOf({ 'session.id': 'a', 'gen_ai.conversation.id': 'b' })).toBe('a');
    expect(sessionOf({ 'session.id': '  ', 'gen_ai.conversation.id': 'b' })).toBe('b');
    expect(userOf({ 'user.id': 42 })).toBe('42');
    expect(userOf({ 'user.id': 'u'.repeat(1000) })).toHaveLength(MAX_CONTEXT_ID_LENGTH);
    expect(sessionOf({})).toBeNull();
    expect(userOf({ 'user.id': true })).toBeNull();
  });

  it("reads the span's attributes over its resource's, as one object: a key the span has hides the resource's", () => {
    expect(sessionOf({ 'session.id': 'span' }, { 'session.id': 'resource' })).toBe('span');
    expect(sessionOf({ 'langfuse.session.id': 'span' }, { 'session.id': 'resource' })).toBe('resource');
    expect(sessionOf({ 'session.id': '  ' }, { 'session.id': 'resource', 'langfuse.session.id': 'l' })).toBe('l');
    expect(userOf({}, { 'user.id': 7 })).toBe('7');
    expect(userOf({ 'enduser.id': 'e' }, {})).toBe('e');
  });

  it('tags from arrays, JSON strings and comma lists, merged, trimmed and unique', () => {
    expect(tagsOf({ 'tag.tags': ['vip', 'beta'] })).toEqual(['vip', 'beta']);
    expect(tagsOf({ 'tag.tags': '["vip","beta"]' })).toEqual(['vip', 'beta']);
    expect(tagsOf({ 'langfuse.trace.tags': 'vip, beta ,,' })).toEqual(['vip', 'beta']);
    expect(tagsOf({ 'tag.tags': ['vip'], 'ai.telemetry.metadata.tags': ['vip', 'eu'] })).toEqual(['vip', 'eu']);
    expect(tagsOf({ 'tag.tags': '[not json' })).toEqual(['[not json']);
    expect(tagsOf({ 'tag.tags': Array.from({ length: 80 }, (_, i) => `t${i}`) })).toHaveLength(50);
    expect(tagsOf({})).toEqual([]);
  });

  it('the project: the header, else sightline.project, else openinference.project.name, else service.name', () => {
    const resource = { 'sightline.project': 'a', 'openinference.project.name': 'b', 'service.name': 'c' };
    expect(projectNameOf('support-bot', resource)).toBe('support-bot');
    expect(projectNameOf(undefined, resource)).toBe('a');
    expect(projectNameOf('', { 'openinference.project.name': 'b', 'service.name': 'c' })).toBe('b');
    expect(projectNameOf(undefined, { 'service.name': 'c' })).toBe('c');
    expect(projectNameOf(undefined, {})).toBeNull();
  });
});
