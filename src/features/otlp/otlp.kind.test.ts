import { describe, expect, it } from 'vitest';
import { kindOf, modelOf, outcomeOf, STATUS_ERROR } from './otlp.kind.js';

describe('the kind of a span', () => {
  const rows: [string, string, Record<string, unknown>, string][] = [
    // OpenTelemetry GenAI
    ['GenAI chat', 'chat gpt-4o', { 'gen_ai.operation.name': 'chat' }, 'llm'],
    ['GenAI text_completion', 'x', { 'gen_ai.operation.name': 'text_completion' }, 'llm'],
    ['GenAI generate_content', 'x', { 'gen_ai.operation.name': 'generate_content' }, 'llm'],
    ['GenAI embeddings', 'x', { 'gen_ai.operation.name': 'embeddings' }, 'embedding'],
    ['GenAI execute_tool', 'x', { 'gen_ai.operation.name': 'execute_tool' }, 'tool'],
    ['GenAI invoke_agent', 'x', { 'gen_ai.operation.name': 'invoke_agent' }, 'agent'],
    ['GenAI create_agent', 'x', { 'gen_ai.operation.name': 'create_agent' }, 'agent'],
    ['GenAI retrieval', 'x', { 'gen_ai.operation.name': 'retrieval' }, 'retriever'],
    ['GenAI invoke_workflow', 'x', { 'gen_ai.operation.name': 'invoke_workflow' }, 'chain'],
    // OpenInference
    ['OpenInference LLM', 'OpenAI Chat Completions', { 'openinference.span.kind': 'LLM' }, 'llm'],
    ['OpenInference CHAIN', 'x', { 'openinference.span.kind': 'CHAIN' }, 'chain'],
    ['OpenInference TOOL', 'x', { 'openinference.span.kind': 'TOOL' }, 'tool'],
    ['OpenInference RETRIEVER', 'x', { 'openinference.span.kind': 'RETRIEVER' }, 'retriever'],
    ['OpenInference EMBEDDING', 'x', { 'openinference.span.kind': 'EMBEDDING' }, 'embedding'],
    ['OpenInference AGENT', 'x', { 'openinference.span.kind': 'AGENT' }, 'agent'],
    ['OpenInference RERANKER', 'x', { 'openinference.span.kind': 'RERANKER' }, 'custom'],
    ['OpenInference GUARDRAIL', 'x', { 'openinference.span.kind': 'GUARDRAIL' }, 'custom'],
    ['OpenInference EVALUATOR', 'x', { 'openinference.span.kind': 'EVALUATOR' }, 'custom'],
    ['OpenInference lower case', 'x', { 'openinference.span.kind': 'llm' }, 'llm'],
    // Vercel AI SDK, by span name or ai.operationId
    ['Vercel generateText', 'ai.generateText', {}, 'chain'],
    ['Vercel streamObject', 'ai.streamObject', {}, 'chain'],
    ['Vercel doGenerate', 'ai.generateText.doGenerate', {}, 'llm'],
    ['Vercel doStream', 'ai.streamText.doStream', {}, 'llm'],
    ['Vercel toolCall', 'ai.toolCall', {}, 'tool'],
    ['Vercel embed (the call that wraps the model call)', 'ai.embed', {}, 'chain'],
    ['Vercel embedMany.doEmbed', 'ai.embedMany.doEmbed', {}, 'embedding'],
    ['Vercel operationId over the name', 'support-chat', { 'ai.operationId': 'ai.generateText.doGenerate' }, 'llm'],
    // OpenLLMetry
    ['Traceloop workflow', 'x', { 'traceloop.span.kind': 'workflow' }, 'chain'],
    ['Traceloop task', 'x', { 'traceloop.span.kind': 'task' }, 'chain'],
    ['Traceloop agent', 'x', { 'traceloop.span.kind': 'agent' }, 'agent'],
    ['Traceloop tool', 'x', { 'traceloop.span.kind': 'tool' }, 'tool'],
    // Everything else is kept, as custom
    ['an HTTP span', 'GET /api/chat', { 'http.request.method': 'GET' }, 'custom'],
    ['an unknown GenAI operation', 'x', { 'gen_ai.operation.name': 'dance' }, 'custom'],
    ['GenAI before OpenInference', 'x', { 'gen_ai.operation.name': 'chat', 'openinference.span.kind': 'CHAIN' }, 'llm'],
  ];
  for (const [label, name, attributes, kind] of rows) {
    it(`${label} → ${kind}`, () => expect(kindOf(name, attributes)).toBe(kind));
  }
});

describe('the outcome of a span', () => {
  const error = (message = '') => ({ code: STATUS_ERROR, message });
  it('UNSET and OK are succeeded', () => {
    expect(outcomeOf(null, [], {})).toEqual({ status: 'succeeded' });
    expect(outcomeOf({ code: 0, message: '' }, [], {})).toEqual({ status: 'succeeded' });
    expect(outcomeOf({ code: 1, message: 'fine' }, [], {})).toEqual({ status: 'succeeded' });
  });
  it('ERROR is failed, with the status message, else the exception event, else error.type', () => {
    expect(outcomeOf(error('rate limited'), [], {})).toEqual({ status: 'failed', error: 'rate limited' });
    const exception = { name: 'exception', attributes: { 'exception.type': 'APIError', 'exception.message': '429 Too Many Requests' } };
    expect(outcomeOf(error(), [{ name: 'other', attributes: {} }, exception], {})).toEqual({ status: 'failed', error: 'APIError: 429 Too Many Requests' });
    expect(outcomeOf(error(), [{ name: 'exception', attributes: { 'exception.message': 'boom' } }], {})).toEqual({ status: 'failed', error: 'boom' });
    expect(outcomeOf(error(), [], { 'error.type': 'timeout' })).toEqual({ status: 'failed', error: 'timeout' });
    expect(outcomeOf(error(), [], {})).toEqual({ status: 'failed', error: 'The span ended with status ERROR.' });
  });
});

describe('the model of a span', () => {
  it('prefers the response model, in each convention', () => {
    expect(modelOf({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06' })).toBe('gpt-4o-2024-08-06');
    expect(modelOf({ 'gen_ai.request.model': 'gpt-4o' })).toBe('gpt-4o');
    expect(modelOf({ 'llm.model_name': 'claude-sonnet-4' })).toBe('claude-sonnet-4');
    expect(modelOf({ 'ai.model.id': 'gpt-4o-mini', 'ai.response.model': 'gpt-4o-mini-2024-07-18' })).toBe('gpt-4o-mini-2024-07-18');
    expect(modelOf({ 'embedding.model_name': 'text-embedding-3-small' })).toBe('text-embedding-3-small');
    expect(modelOf({ 'gen_ai.request.model': '' })).toBeNull();
    expect(modelOf({})).toBeNull();
    expect(modelOf({ 'llm.model_name': 'm'.repeat(300) })).toHaveLength(256);
  });
});
