/**
 * Model providers by one name: the OpenTelemetry GenAI semantic conventions' registry of
 * `gen_ai.provider.name` values (`openai`, `anthropic`, `aws.bedrock`, `azure.ai.openai`,
 * `gcp.vertex_ai`, `mistral_ai`, `x_ai`, …), which clients spell their own ways: OpenInference's
 * `mistralai` and `xai`, the Vercel AI SDK's `openai.chat` and `anthropic.messages`, LangChain's
 * `google_genai`. Dependency-free: text in, text out.
 */

/** The registry's names (semantic conventions, gen_ai.provider.name's well-known values). */
const REGISTRY = new Set([
  'openai',
  'anthropic',
  'aws.bedrock',
  'azure.ai.inference',
  'azure.ai.openai',
  'cohere',
  'deepseek',
  'gcp.gemini',
  'gcp.gen_ai',
  'gcp.vertex_ai',
  'groq',
  'ibm.watsonx.ai',
  'mistral_ai',
  'perplexity',
  'x_ai',
]);

/** Other spellings of registry names, by what clients send (lowercase). */
const ALIASES: Record<string, string> = {
  mistral: 'mistral_ai',
  mistralai: 'mistral_ai',
  'mistral-ai': 'mistral_ai',
  xai: 'x_ai',
  'x-ai': 'x_ai',
  grok: 'x_ai',
  google: 'gcp.gen_ai',
  google_genai: 'gcp.gen_ai',
  'google-genai': 'gcp.gen_ai',
  'google.generative-ai': 'gcp.gen_ai',
  gemini: 'gcp.gemini',
  google_gemini: 'gcp.gemini',
  vertexai: 'gcp.vertex_ai',
  vertex_ai: 'gcp.vertex_ai',
  'vertex-ai': 'gcp.vertex_ai',
  google_vertexai: 'gcp.vertex_ai',
  'google.vertex': 'gcp.vertex_ai',
  'google-vertex': 'gcp.vertex_ai',
  aws: 'aws.bedrock',
  bedrock: 'aws.bedrock',
  amazon: 'aws.bedrock',
  'amazon-bedrock': 'aws.bedrock',
  amazon_bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
  azure_openai: 'azure.ai.openai',
  'azure-openai': 'azure.ai.openai',
  'azure.openai': 'azure.ai.openai',
  azure_ai: 'azure.ai.inference',
  watsonx: 'ibm.watsonx.ai',
  ibm: 'ibm.watsonx.ai',
  anthropic_vertex: 'gcp.vertex_ai',
};

/**
 * The registry's name of a provider as a client spells it, else the name as sent in lowercase. A name
 * the registry does not know but one of whose dotted prefixes it does (the Vercel AI SDK's `openai.chat`,
 * `openai.embedding`, `mistral.chat`, `google.vertex.chat`) is that prefix's.
 */
export function providerName(sent: string): string {
  const name = sent.trim().toLowerCase();
  if (REGISTRY.has(name)) return name;
  if (Object.hasOwn(ALIASES, name)) return ALIASES[name]!;
  // Its dotted prefixes, longest first: `google.vertex.chat` is Vertex AI's, `openai.chat` OpenAI's.
  for (let dot = name.lastIndexOf('.'); dot > 0; dot = name.lastIndexOf('.', dot - 1)) {
    const head = name.slice(0, dot);
    if (REGISTRY.has(head)) return head;
    if (Object.hasOwn(ALIASES, head)) return ALIASES[head]!;
  }
  return name;
}

/** What providers are compared by when prices are matched: one family for Google's endpoints (Gemini, Vertex AI, any). */
export function providerFamily(sent: string): string {
  const name = providerName(sent);
  return name.startsWith('gcp.') ? 'gcp' : name;
}
