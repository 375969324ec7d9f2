import { describe, expect, it } from 'vitest';
import { priceFor, type PriceOverride } from './models.pricing.js';
import { providerFamily, providerName } from './models.providers.js';

describe('providerName: one name per provider, the GenAI registry’s', () => {
  it.each([
    ['openai', 'openai'],
    [' OpenAI ', 'openai'],
    ['openai.chat', 'openai'],
    ['openai.embedding', 'openai'],
    ['openai.responses', 'openai'],
    ['anthropic.messages', 'anthropic'],
    ['mistralai', 'mistral_ai'],
    ['mistral', 'mistral_ai'],
    ['mistral.chat', 'mistral_ai'],
    ['xai', 'x_ai'],
    ['xai.chat', 'x_ai'],
    ['google', 'gcp.gen_ai'],
    ['google.generative-ai', 'gcp.gen_ai'],
    ['google_genai', 'gcp.gen_ai'],
    ['google.vertex.chat', 'gcp.vertex_ai'],
    ['vertexai', 'gcp.vertex_ai'],
    ['aws.bedrock', 'aws.bedrock'],
    ['bedrock', 'aws.bedrock'],
    ['azure', 'azure.ai.openai'],
    ['azure.ai.openai', 'azure.ai.openai'],
    ['azure.ai.inference', 'azure.ai.inference'],
    ['groq.chat', 'groq'],
    // Unknown to the registry: as sent, in lowercase.
    ['Ollama', 'ollama'],
    ['mock-provider', 'mock-provider'],
    ['together.ai', 'together.ai'],
    ['__proto__', '__proto__'],
    ['toString', 'tostring'],
  ])('%j → %j', (sent, name) => {
    expect(providerName(sent)).toBe(name);
  });

  it('groups Google’s endpoints in one family for prices', () => {
    expect(new Set(['google', 'gcp.gemini', 'vertexai', 'google.vertex.chat'].map(providerFamily))).toEqual(new Set(['gcp']));
    expect(providerFamily('mistralai')).toBe('mistral_ai');
  });
});

describe('priceFor compares providers by family, however the run and the price spell them', () => {
  const price = (provider: string | null, inputPrice: number): PriceOverride => ({
    id: `mpr_${inputPrice}`,
    model: 'acme-large',
    provider,
    effectiveFrom: 0,
    inputPrice,
    outputPrice: 1,
    cacheReadPrice: null,
    cacheWritePrice: null,
    reasoningPrice: null,
  });

  it('takes an organization’s price for “mistral” for runs of mistralai, mistral_ai and mistral.chat, and not for another provider', () => {
    const overrides = [price('mistral', 7), price(null, 3)];
    for (const provider of ['mistral', 'mistralai', 'mistral_ai', 'mistral.chat'])
      expect(priceFor('acme-large', provider, 1, overrides)?.inputPrice, provider).toBe(7);
    expect(priceFor('acme-large', 'openai', 1, overrides)?.inputPrice).toBe(3);
  });

  it('prefers the built-in row of the run’s own provider family at equal length', () => {
    const builtin = [
      { provider: 'openai', match: ['shared-model'], inputPrice: 1, outputPrice: 1, cacheReadPrice: null, cacheWritePrice: null, reasoningPrice: null },
      { provider: 'google', match: ['shared-model'], inputPrice: 2, outputPrice: 2, cacheReadPrice: null, cacheWritePrice: null, reasoningPrice: null },
    ];
    expect(priceFor('shared-model', 'google.vertex.chat', 1, [], builtin as never)?.inputPrice).toBe(2);
    expect(priceFor('shared-model', 'openai.chat', 1, [], builtin as never)?.inputPrice).toBe(1);
  });
});
