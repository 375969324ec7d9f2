/**
 * Every page of the dashboard, as its users see it, checked the same way (issue 28's bar): realistic data
 * sent the way users send it (the SDK's tracer and its wrapOpenAI around the real `openai` package, the
 * official OpenTelemetry protobuf exporter with OpenInference and GenAI attributes, the REST API for
 * datasets, experiments, prompts, monitors, queues and rules); then each page at 1440×900 and 390×844, in
 * light and in dark: axe-core (WCAG 2.1 A and AA) finds no critical and no serious violation, the document
 * never scrolls sideways (`scrollWidth <= innerWidth`), and the browser logs no error.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { beforeAll, expect } from 'vitest';
import { Sightline, wrapOpenAI } from '../packages/client/src/index.js';
import { apiCall, browserSuite } from './helpers/browser.js';
import { CHAT_MODEL, startOpenAiServer } from './helpers/openai-server.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-a11y');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ACTION_MS = 10_000;
const SIZES = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

const SETUP = { artifacts: ARTIFACTS, stepMs: 240_000, login: 'e2e-a11y@example.test', project: 'a11y-project' };

browserSuite('every page: accessible, within the screen, without console errors (axe-core, chromium + playwright-core)', SETUP, (ui) => {
  const { step } = ui;
  const ids: Record<string, string> = {};
  const api = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await apiCall(ui.dashboard.server.url, ui.token, method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  };

  beforeAll(async () => {
    const base = ui.dashboard.server.url;
    // The SDK: a traced conversation turn with a retriever and a model call through wrapOpenAI (the real openai package).
    const openaiApi = await startOpenAiServer();
    try {
      const tracer = new Sightline({ baseUrl: base, token: ui.token }).tracer(ui.projectId);
      const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: openaiApi.baseURL, maxRetries: 0 }), tracer);
      for (const [turn, question] of ['Where is my refund for order 42?', 'Can you split the invoice?'].entries()) {
        await tracer
          .trace(
            'support-agent',
            async () => {
              await tracer.trace('retrieve', () => ['Refunds take 5 days.', 'Invoices can be split once.'], { kind: 'retriever', inputs: { question } });
              await openai.chat.completions.create({ model: CHAT_MODEL, messages: [{ role: 'user', content: question }] });
              if (turn === 1) throw new Error('TimeoutError: the billing service did not answer');
            },
            { kind: 'agent', inputs: { messages: [{ role: 'user', content: question }] }, sessionId: 'conv-1', userId: 'ada' },
          )
          .catch(() => undefined);
      }
      await tracer.shutdown();
    } finally {
      await openaiApi.close();
    }
    // The OpenTelemetry protobuf exporter: an OpenInference LLM span with its messages and a GenAI chat span.
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'a11y-project' }),
      spanProcessors: [
        new SimpleSpanProcessor(
          new OTLPTraceExporter({ url: `${base}/v1/traces`, headers: { Authorization: `Bearer ${ui.token}`, 'Sightline-Project': ui.projectId } }),
        ),
      ],
    });
    const tracer = provider.getTracer('a11y');
    tracer.startActiveSpan('ChatOpenAI', (span) => {
      span.setAttributes({
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o-mini',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'Summarise the plans as a table.',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': '| Plan | Price |\n| --- | ---: |\n| Pro | $20 |\n\n```python\nprint("hi")\n```',
        'llm.token_count.prompt': 20,
        'llm.token_count.completion': 30,
        'session.id': 'conv-2',
        'user.id': 'grace',
      });
      span.end();
    });
    tracer.startActiveSpan('chat gpt-4o', (span) => {
      span.setAttributes({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 7,
      });
      span.end();
    });
    await provider.forceFlush();
    await provider.shutdown();

    const listed = await api('GET', `/v1/projects/${ui.projectId}/runs?limit=100`);
    ids.run = listed.items.find((r: { kind: string }) => r.kind === 'llm').id;
    ids.trace = listed.items.find((r: { name: string }) => r.name === 'support-agent').traceId;
    // Datasets and experiments, a prompt, a monitor, an annotation queue and an evaluator rule through the API.
    ids.dataset = (await api('POST', '/v1/datasets', { name: 'Capitals' }, 201)).id;
    await api('POST', `/v1/datasets/${ids.dataset}/items`, { items: [{ id: 'q1', input: 'Capital of France?', expectedOutput: 'Paris' }] }, 201);
    const experiments: string[] = [];
    for (const name of ['baseline', 'candidate']) {
      const experiment = await api('POST', '/v1/experiments', { name, datasetId: ids.dataset, projectId: ui.projectId }, 201);
      await api('POST', `/v1/projects/${ui.projectId}/runs/batch`, {
        runs: [
          {
            id: `${name}-q1`,
            name: 'answer',
            kind: 'chain',
            status: 'succeeded',
            startTime: new Date(Date.now() - 2000).toISOString(),
            endTime: new Date(Date.now() - 1000).toISOString(),
            outputs: 'Paris',
          },
        ],
      });
      await api('POST', `/v1/experiments/${experiment.id}/results`, { results: [{ itemId: 'q1', runId: `${name}-q1`, output: 'Paris', latencyMs: 900 }] });
      experiments.push(experiment.id);
    }
    ids.experiment = experiments[0]!;
    ids.compare = experiments.join(',');
    ids.prompt = (await api('POST', '/v1/prompts', { name: 'support-reply', template: 'Answer {{question}} briefly.' }, 201)).id;
    const monitor = { name: 'Errors', metric: 'error_count', window: '1h', threshold: { op: '>', value: 0 } };
    ids.monitor = (await api('POST', `/v1/projects/${ui.projectId}/monitors`, monitor, 201)).id;
    const correct = await api('POST', '/v1/score-configs', { name: 'correct', dataType: 'boolean' }, 201);
    const queue = { name: 'Review answers', target: 'run', scoreConfigIds: [correct.id] };
    ids.queue = (await api('POST', `/v1/projects/${ui.projectId}/annotation-queues`, queue, 201)).id;
    await api('POST', `/v1/projects/${ui.projectId}/annotation-queues/${ids.queue}/items`, { ids: [ids.run] });
    ids.empty = (await api('POST', '/v1/projects', { name: 'empty-project' }, 201)).id;
  }, 180_000);

  const pages = () => {
    const p = `/projects/${ui.projectId}`;
    return [
      '/projects',
      `${p}/traces`,
      `${p}/traces/${ids.trace}?run=${ids.run}`,
      `${p}/runs`,
      `${p}/runs/${ids.run}`,
      `${p}/sessions`,
      `${p}/sessions/conv-1`,
      `${p}/users`,
      `${p}/users/ada`,
      `${p}/monitors`,
      `${p}/monitors/${ids.monitor}`,
      `${p}/annotation-queues`,
      `${p}/annotation-queues/${ids.queue}`,
      `${p}/annotation-queues/${ids.queue}/review`,
      `${p}/evaluators`,
      '/prompts',
      `/prompts/${ids.prompt}`,
      '/datasets',
      `/datasets/${ids.dataset}`,
      `/experiments/${ids.experiment}`,
      `/experiments/compare?ids=${ids.compare}`,
      '/models',
      '/settings',
      `/projects/${ids.empty}/traces`,
    ];
  };

  for (const scheme of SCHEMES) {
    for (const size of SIZES) {
      step(`every page at ${size.width}×${size.height} in ${scheme}: no critical or serious axe violation, no sideways scroll, no console error`, async () => {
        const page = ui.page;
        const errors: string[] = [];
        const onConsole = (message: { type(): string; text(): string }) => {
          if (message.type() === 'error') errors.push(message.text());
        };
        const onError = (error: Error) => errors.push(error.message);
        page.on('console', onConsole);
        page.on('pageerror', onError);
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme: scheme });
        const found: string[] = [];
        try {
          for (const path of pages()) {
            errors.length = 0;
            await page.goto(path);
            await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: ACTION_MS });
            await page.waitForLoadState('networkidle').catch(() => {});
            await page.waitForFunction('!document.querySelector(".loading, [aria-busy=true]")', undefined, { timeout: ACTION_MS }).catch(() => {});
            // Evaluated through the DevTools protocol: the dashboard's Content-Security-Policy refuses injected script tags.
            await page.evaluate(AXE_SOURCE);
            const violations = await page.evaluate<Violation[]>(
              `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] }).then((r) => r.violations)`,
            );
            for (const v of violations.filter((v) => v.impact === 'critical' || v.impact === 'serious'))
              for (const node of v.nodes)
                found.push(
                  `${path}: ${v.impact} ${v.id} at ${JSON.stringify(node.target)} ${node.html.slice(0, 160)} — ${(node.failureSummary ?? '').split('\n').slice(1, 2).join('').trim()}`,
                );
            const width = await page.evaluate<{ scroll: number; inner: number }>(
              '({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })',
            );
            if (width.scroll > width.inner) found.push(`${path}: the document scrolls sideways (${width.scroll} > ${width.inner})`);
            for (const error of errors) found.push(`${path}: console error: ${error}`);
          }
        } finally {
          page.off('console', onConsole);
          page.off('pageerror', onError);
          await page.emulateMedia({ colorScheme: 'light' });
          await page.setViewportSize({ width: 1440, height: 900 });
        }
        writeFileSync(join(ARTIFACTS, `violations-${scheme}-${size.width}.json`), JSON.stringify(found, null, 2));
        expect(found).toEqual([]);
      });
    }
  }
});
