import { expect, it } from 'vitest';
import { describeEachDialect, expectProblem } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { scoresWorld } from './scores.test-support.js';

/** Scores on runs, traces and sessions: created, validated against configs, retried, listed, changed by their author or an admin. */
describeEachDialect('scores', (ctx) => {
  it('scores a run, a trace and a session with numbers, booleans and categories, and reads them back', async () => {
    const { member, project, call } = await scoresWorld(ctx);
    const run = await call(member.token, 'POST', '/runs/t1-llm/scores', { name: 'helpfulness', value: 0.8, comment: 'good, a bit long' });
    expect(run.statusCode, run.body).toBe(201);
    expect(run.json()).toEqual({
      id: expect.stringMatching(/^scr_[0-9a-z]{26}$/),
      projectId: project.id,
      target: 'run',
      runId: 't1-llm',
      traceId: null,
      sessionId: null,
      name: 'helpfulness',
      dataType: 'numeric',
      value: 0.8,
      comment: 'good, a bit long',
      source: 'api',
      author: { kind: 'user', id: member.userId },
      configId: null,
      queueId: null,
      metadata: {},
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const trace = await call(member.token, 'POST', '/traces/t1/scores', { name: 'thumbs', value: false, source: 'annotation', metadata: { by: 'qa' } });
    expect(trace.statusCode, trace.body).toBe(201);
    expect(trace.json()).toMatchObject({
      target: 'trace',
      traceId: 't1',
      runId: null,
      dataType: 'boolean',
      value: false,
      source: 'annotation',
      metadata: { by: 'qa' },
    });
    const session = await call(member.token, 'POST', '/sessions/chat-1/scores', { name: 'tone', value: 'friendly', source: 'evaluator' });
    expect(session.statusCode, session.body).toBe(201);
    expect(session.json()).toMatchObject({ target: 'session', sessionId: 'chat-1', dataType: 'categorical', value: 'friendly' });

    expect((await call(member.token, 'GET', `/scores/${run.json().id}`)).json()).toEqual(run.json());
    const listed = await call(member.token, 'GET', '/scores');
    expect(listed.json().items.map((s: Json) => s.name)).toEqual(['tone', 'thumbs', 'helpfulness']);
  });

  it('refuses a target that does not exist (404) and a score without a name or a config (400)', async () => {
    const { member, call } = await scoresWorld(ctx);
    expectProblem(await call(member.token, 'POST', '/runs/nope/scores', { name: 'x', value: 1 }), 404, 'not-found', 'Run nope does not exist.');
    expectProblem(await call(member.token, 'POST', '/traces/nope/scores', { name: 'x', value: 1 }), 404, 'not-found', 'Trace nope does not exist.');
    expectProblem(await call(member.token, 'POST', '/sessions/nope/scores', { name: 'x', value: 1 }), 404, 'not-found', 'Session nope does not exist.');
    const unnamed = expectProblem(await call(member.token, 'POST', '/runs/t1/scores', { value: 1 }), 400, 'validation');
    expect(unnamed.errors).toEqual([{ pointer: '/name', detail: 'A score has a name, or a configId whose name it takes.' }]);
    for (const value of [null, [], {}, '']) expectProblem(await call(member.token, 'POST', '/runs/t1/scores', { name: 'x', value }), 400, 'validation');
    expectProblem(await call(member.token, 'POST', '/runs/t1/scores', { name: ' padded', value: 1 }), 400, 'validation');
    expectProblem(await call(member.token, 'POST', '/runs/t1/scores', { name: 'x', value: 1, source: 'robot' }), 400, 'validation');
  });

  it('validates against the config named by id or by the score’s name: type, range and categories', async () => {
    const { member, call, config } = await scoresWorld(ctx);
    const helpful = await config({ name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 });
    await config({ name: 'tone', dataType: 'categorical', categories: ['friendly', 'neutral', 'rude'] });
    await config({ name: 'thumbs', dataType: 'boolean' });
    const fault = async (body: Json) => {
      const problem = expectProblem(await call(member.token, 'POST', '/runs/t1/scores', body), 400, 'validation');
      return (problem.errors as Json[]).map((e) => [e.pointer, e.detail]);
    };
    expect(await fault({ name: 'helpfulness', value: 1.5 })).toEqual([['/value', 'The score config "helpfulness" takes values up to 1; 1.5 is more.']]);
    expect(await fault({ name: 'helpfulness', value: -0.1 })).toEqual([['/value', 'The score config "helpfulness" takes values from 0; -0.1 is less.']]);
    expect(await fault({ name: 'helpfulness', value: 'high' })).toEqual([
      ['/value', 'The score config "helpfulness" takes numeric values; this one is categorical.'],
    ]);
    expect(await fault({ name: 'tone', value: 'sarcastic' })).toEqual([
      ['/value', 'The score config "tone" takes one of "friendly", "neutral", "rude"; "sarcastic" is not one.'],
    ]);
    expect(await fault({ name: 'thumbs', value: 1 })).toEqual([['/value', 'The score config "thumbs" takes boolean values; this one is numeric.']]);
    expect(await fault({ configId: 'scc_missing', value: 1 })).toEqual([['/configId', 'Score config scc_missing does not exist.']]);
    expect(await fault({ configId: helpful.id, name: 'other', value: 1 })).toEqual([
      ['/name', `The score config ${helpful.id} is named "helpfulness", not "other".`],
    ]);

    const byId = await call(member.token, 'POST', '/runs/t1/scores', { configId: helpful.id, value: 1 });
    expect(byId.statusCode, byId.body).toBe(201);
    expect(byId.json()).toMatchObject({ name: 'helpfulness', configId: helpful.id, value: 1 });
    const byName = await call(member.token, 'POST', '/runs/t1/scores', { name: 'tone', value: 'neutral' });
    expect(byName.json()).toMatchObject({ configId: expect.stringMatching(/^scc_/), value: 'neutral' });
    // A name no config has: any value.
    expect((await call(member.token, 'POST', '/runs/t1/scores', { name: 'free-form', value: 'anything' })).statusCode).toBe(201);
  });

  it('makes a create with a client id idempotent: the same content is 200 with the stored score, other content a 409', async () => {
    const { member, call } = await scoresWorld(ctx);
    const body = { id: 'fb-42', name: 'thumbs', value: true, metadata: { a: 1, b: [1, 2] } };
    const first = await call(member.token, 'POST', '/runs/t1/scores', body);
    expect(first.statusCode, first.body).toBe(201);
    const again = await call(member.token, 'POST', '/runs/t1/scores', { ...body, metadata: { b: [1, 2], a: 1 } });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expectProblem(
      await call(member.token, 'POST', '/runs/t1/scores', { ...body, value: false }),
      409,
      'conflict',
      'Score fb-42 already exists with other content.',
    );
    expectProblem(await call(member.token, 'POST', '/runs/t1-llm/scores', body), 409, 'conflict');
  });

  it('lists with every filter; traceId gives the trace’s scores and its runs’', async () => {
    const { member, other, call } = await scoresWorld(ctx);
    const give = async (token: string, path: string, body: Json) => (await call(token, 'POST', path, body)).json().id as string;
    const a = await give(member.token, '/runs/t1-llm/scores', { name: 'helpfulness', value: 0.5 });
    const b = await give(member.token, '/traces/t1/scores', { name: 'thumbs', value: true, source: 'annotation' });
    const c = await give(other.token, '/runs/t2/scores', { name: 'helpfulness', value: 1 });
    const d = await give(other.token, '/sessions/chat-1/scores', { name: 'tone', value: 'rude', source: 'evaluator' });
    const ids = async (query: string) => {
      const res = await call(member.token, 'GET', `/scores${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items.map((s: Json) => s.id);
    };
    expect(await ids('')).toEqual([d, c, b, a]);
    expect(await ids('?name=helpfulness')).toEqual([c, a]);
    expect(await ids('?source=annotation')).toEqual([b]);
    expect(await ids('?target=session')).toEqual([d]);
    expect(await ids('?runId=t2')).toEqual([c]);
    expect(await ids('?traceId=t1')).toEqual([b, a]);
    expect(await ids('?sessionId=chat-1')).toEqual([d]);
    expect(await ids(`?authorId=${other.userId}`)).toEqual([d, c]);
    expect(await ids('?name=helpfulness&authorId=' + member.userId)).toEqual([a]);
    expect(await ids('?createdBefore=2000-01-01T00:00:00Z')).toEqual([]);
    expectProblem(await call(member.token, 'GET', '/scores?target=user'), 400, 'validation');
    expectProblem(await call(member.token, 'GET', '/scores?createdAfter=yesterday'), 400, 'validation');
  });

  it('lets the author or an admin change and delete a score (403 for other members); a new value is checked against the config', async () => {
    const { member, other, admin, viewer, call, config } = await scoresWorld(ctx);
    await config({ name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 });
    const score = (await call(member.token, 'POST', '/runs/t1/scores', { name: 'helpfulness', value: 0.2 })).json();
    expectProblem(
      await call(other.token, 'PATCH', `/scores/${score.id}`, { value: 0.9 }),
      403,
      'forbidden',
      `Only the author of score ${score.id} or an admin may change it.`,
    );
    expectProblem(await call(viewer.token, 'PATCH', `/scores/${score.id}`, { value: 0.9 }), 403, 'forbidden');
    expectProblem(await call(member.token, 'PATCH', `/scores/${score.id}`, { value: 2 }), 400, 'validation');
    expectProblem(await call(member.token, 'PATCH', `/scores/${score.id}`, {}), 400, 'validation');
    const changed = await call(member.token, 'PATCH', `/scores/${score.id}`, { value: 0.9, comment: 'on reflection' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ id: score.id, value: 0.9, comment: 'on reflection', author: score.author, createdAt: score.createdAt });
    const byAdmin = await call(admin.token, 'PATCH', `/scores/${score.id}`, { comment: null });
    expect(byAdmin.json()).toMatchObject({ value: 0.9, comment: null });
    expectProblem(await call(other.token, 'DELETE', `/scores/${score.id}`), 403, 'forbidden');
    expect((await call(member.token, 'DELETE', `/scores/${score.id}`)).statusCode).toBe(204);
    expectProblem(await call(member.token, 'GET', `/scores/${score.id}`), 404, 'not-found', `Score ${score.id} does not exist.`);
    expectProblem(await call(admin.token, 'DELETE', `/scores/${score.id}`), 404, 'not-found');
  });

  it('lets a viewer read scores but not give them', async () => {
    const { viewer, member, call } = await scoresWorld(ctx);
    expectProblem(
      await call(viewer.token, 'POST', '/runs/t1/scores', { name: 'x', value: 1 }),
      403,
      'forbidden',
      'Your role (viewer) does not allow scores:write.',
    );
    await call(member.token, 'POST', '/runs/t1/scores', { name: 'x', value: 1 });
    expect((await call(viewer.token, 'GET', '/scores')).json().items).toHaveLength(1);
  });
});
