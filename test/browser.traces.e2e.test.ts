/**
 * Debugging a conversation in a real browser (chromium + playwright-core, the machinery of
 * test/browser.e2e.test.ts on a server and a user of its own): the project opens on its traces with
 * input and output previews; a search narrows them; dragging over the chart zooms the window (the URL and
 * the rows follow); a trace opens as a waterfall with its failed run marked; a model call opens beside
 * it as a conversation (roles, Markdown, a code block, a tool call: text on the page, not JSON) with
 * the raw JSON a click away; its session reads turn by turn; a call recorded by the SDK's wrapOpenAI is
 * previewed by its messages; a retriever traced by OpenInference's LangChain instrumentation through the
 * OpenTelemetry exporter reads as its query and the documents it found. With SIGHTLINE_UPDATE_SCREENSHOTS=1 the
 * traces list, the trace view and the conversation are saved to docs/screenshots/ for the README.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever } from '@langchain/core/retrievers';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { beforeAll, expect } from 'vitest';
import { Sightline, wrapOpenAI } from '../packages/client/src/index.js';
import { apiCall, browserSuite, expectWithinScreen, screenshot } from './helpers/browser.js';
import { ANSWER, CHAT_MODEL, startOpenAiServer } from './helpers/openai-server.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts', 'screenshots-traces');
const README_SHOTS = process.env.SIGHTLINE_UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : null;
const ACTION_MS = 8_000;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Five minutes into an hour that began at least two hours ago: the conversation's turns share one hourly bucket. */
const T0 = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR + 5 * MIN;
const at = (ms: number) => new Date(T0 + ms).toISOString();
const SYSTEM =
  '## Refund policy\nAnswer **briefly**. Use this query:\n```sql\nselect * from orders where id = 42\n```\n\n| Plan | Refund window |\n| --- | ---: |\n| Pro | 30 days |\n| Free | 14 days |';

/** Two turns of one conversation, and a trace about something else 80 minutes later. */
function traceRuns(): Record<string, unknown>[] {
  const turn = (n: number, start: number, question: string, answer: string) => [
    {
      id: `turn-${n}`,
      name: 'support-agent',
      kind: 'agent',
      status: 'succeeded',
      startTime: at(start),
      endTime: at(start + 4000),
      sessionId: 'conv-1',
      userId: 'ada',
      inputs: { messages: [{ role: 'user', content: question }] },
      outputs: { content: answer },
    },
    {
      id: `turn-${n}-llm`,
      parentRunId: `turn-${n}`,
      name: 'chat gpt-4o',
      kind: 'llm',
      status: 'succeeded',
      startTime: at(start + 200),
      endTime: at(start + 2500),
      model: 'gpt-4o',
      sessionId: 'conv-1',
      usage: { promptTokens: 1200, completionTokens: 80 },
      inputs: {
        messages: [
          { role: 'system', parts: [{ type: 'text', content: SYSTEM }] },
          { role: 'user', parts: [{ type: 'text', content: question }] },
        ],
      },
      outputs: {
        messages: [
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 'call-1', name: 'lookup_order', arguments: { orderId: 42 } },
              { type: 'text', content: answer },
            ],
          },
        ],
      },
    },
    {
      id: `turn-${n}-tool`,
      parentRunId: `turn-${n}`,
      name: 'lookup_order',
      kind: 'tool',
      status: 'failed',
      startTime: at(start + 2600),
      endTime: at(start + 3900),
      error: 'TimeoutError: orders service did not answer',
      inputs: { orderId: 42 },
    },
  ];
  return [
    ...turn(1, 0, 'Where is my refund for order 42?', 'Your refund was issued on Monday.'),
    ...turn(2, 60_000, 'Can you split the invoice?', 'Yes, I split the invoice in two.'),
    {
      id: 'weather',
      name: 'weather-bot',
      kind: 'chain',
      status: 'succeeded',
      startTime: at(80 * MIN),
      endTime: at(80 * MIN + 900),
      inputs: { prompt: 'weather in Paris' },
      outputs: { text: 'sunny' },
      metadata: { customer: 'c_17', region: 'eu' },
    },
    {
      // A model call with a long history: 120 messages, most of them folded.
      id: 'weather-llm',
      parentRunId: 'weather',
      name: 'forecast model',
      kind: 'llm',
      status: 'succeeded',
      startTime: at(80 * MIN + 100),
      endTime: at(80 * MIN + 800),
      inputs: { messages: Array.from({ length: 120 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `forecast line ${i + 1}` })) },
      outputs: { content: 'sunny' },
    },
  ];
}

/** The suite's server, browser and user: see `browserSuite`. */
const SETUP = { artifacts: ARTIFACTS, stepMs: 30_000, login: 'e2e-traces@example.test', tokenName: 'e2e-traces', project: 'traces-project' };

browserSuite('debugging traces in a real browser (chromium + playwright-core)', SETUP, (ui) => {
  const { step } = ui;
  const rows = () => ui.page.getByRole('table', { name: 'Traces' }).getByRole('row');
  /** The project of many traces (two pages of the list), made by the first-screen step. */
  const MANY = 130;
  let manyProject = '';

  beforeAll(async () => {
    if (README_SHOTS) mkdirSync(README_SHOTS, { recursive: true });
    const batch = await apiCall<{ results: { status: string }[] }>(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${ui.projectId}/runs/batch`, {
      runs: traceRuns(),
    });
    expect(batch.body.results.map((r) => r.status)).toEqual(traceRuns().map(() => 'created'));
  }, 120_000);

  step('opens the project on its traces, root rows with their input and output previews', async () => {
    await ui.page.goto(`/projects/${ui.projectId}`);
    await ui.page.waitForURL(/\/traces$/);
    await expect.poll(() => ui.page.title(), { timeout: ACTION_MS }).toContain('Traces');
    await rows().filter({ hasText: 'weather-bot' }).waitFor();
    // A header row and the three traces, newest first, each with its previews.
    await expect.poll(async () => rows().count(), { timeout: ACTION_MS }).toBe(4);
    await expect(rows().nth(1).textContent()).resolves.toMatch(/weather-bot.*weather in Paris.*sunny/s);
    await expect(rows().nth(3).textContent()).resolves.toMatch(/support-agent.*Where is my refund for order 42\?.*Your refund was issued on Monday\./s);
    // The chart's totals, read once the list's first page is there: the window's three traces, the two
    // turns holding a failed tool call, and the tokens of all of their runs (the model calls', not the roots' own).
    const strip = ui.page.getByRole('region', { name: 'Traces and errors' });
    await expect.poll(async () => (await strip.getByRole('definition').first().textContent()) ?? '', { timeout: ACTION_MS }).toBe('3');
    await expect(strip.getByRole('definition').nth(1).textContent()).resolves.toMatch(/^2 \(67%\)$/);
    const listed = await apiCall<{ items: { usage: { totalTokens: number } }[] }>(
      ui.dashboard.server.url,
      ui.token,
      'GET',
      `/v1/projects/${ui.projectId}/traces`,
    );
    const tokens = listed.body.items.reduce((n, t) => n + t.usage.totalTokens, 0);
    expect(tokens).toBeGreaterThan(2560); // the turns' model calls, 1,280 each, and the forecast's estimate
    await expect(strip.getByRole('definition').nth(4).textContent()).resolves.toBe(tokens.toLocaleString('en-US'));
    if (README_SHOTS) await screenshot(ui.page, join(README_SHOTS, 'traces.png'));
  });

  step(
    'starts the list on the first screen at 1440×900, scrolling with the page and loading more at its end; the chart a strip of the window’s traces',
    async () => {
      // A project of its own: 130 traces of the last hour (a root and a child each), two pages of the list.
      const now = Date.now();
      const many = Array.from({ length: MANY }, (_, i) => {
        const start = now - 60_000 - i * 20_000;
        return [
          {
            id: `many-${i}`,
            name: `many-trace-${i}`,
            kind: 'chain',
            status: 'succeeded',
            startTime: new Date(start).toISOString(),
            endTime: new Date(start + 900).toISOString(),
            inputs: { q: `question ${i}` },
            outputs: { a: `answer ${i}` },
          },
          {
            id: `many-${i}-llm`,
            parentRunId: `many-${i}`,
            name: 'chat',
            kind: 'llm',
            status: 'succeeded',
            startTime: new Date(start + 100).toISOString(),
            endTime: new Date(start + 800).toISOString(),
          },
        ];
      }).flat();
      const project = await apiCall<{ id: string }>(ui.dashboard.server.url, ui.token, 'POST', '/v1/projects', { name: 'many-traces' });
      manyProject = project.body.id;
      const batch = await apiCall<{ results: { status: string }[] }>(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${manyProject}/runs/batch`, {
        runs: many,
      });
      expect(batch.body.results.filter((r) => r.status === 'created')).toHaveLength(2 * MANY);
      const table = ui.page.getByRole('table', { name: 'Traces' });
      const traceRows = () => table.getByRole('rowgroup', { name: 'Traces: rows' }).getByRole('row');
      await ui.page.setViewportSize({ width: 1440, height: 900 });
      try {
        await ui.page.goto(`/projects/${manyProject}/traces`);
        await traceRows().first().waitFor();
        // At least 8 whole trace rows on the first screen, the page not scrolled.
        expect(await ui.page.evaluate('window.scrollY')).toBe(0);
        const onScreen = await traceRows().evaluateAll(
          (els, height) =>
            els.filter((el) => {
              const r = el.getBoundingClientRect();
              return r.top >= 0 && r.bottom <= height;
            }).length,
          900,
        );
        const listTop = await table.evaluate((el) => Math.round(el.getBoundingClientRect().top));
        expect(onScreen, `whole trace rows on the first screen (the list's top at ${listTop} px)`).toBeGreaterThanOrEqual(8);
        // The chart folded to a strip of the window's totals: its traces.
        const strip = ui.page.getByRole('region', { name: 'Traces and errors' });
        await expect.poll(async () => (await strip.getByRole('definition').first().textContent()) ?? '', { timeout: ACTION_MS }).toBe(String(MANY));
        expect(await ui.page.getByRole('img', { name: 'Traces and errors over time' }).count()).toBe(0);
        // No nested scroll box: the rows' group grows with its rows and the document scrolls.
        const group = table.getByRole('rowgroup', { name: 'Traces: rows' });
        expect(
          await group.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { overflowY: string } }).getComputedStyle(el).overflowY),
        ).toBe('visible');
        expect(await group.getAttribute('tabindex')).toBeNull();
        // Scrolling the page to its end loads the next page (onNearEnd) and draws the oldest trace.
        await expect
          .poll(
            async () => {
              await ui.page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
              return Number(await table.getAttribute('aria-rowcount'));
            },
            { timeout: ACTION_MS, interval: 250 },
          )
          .toBe(MANY);
        // The last page may have arrived after the last scroll: to the end of the list as it now is.
        await ui.page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
        await ui.page.getByRole('link', { name: `many-trace-${MANY - 1}`, exact: true }).waitFor();
        expect(await ui.page.getByRole('link', { name: 'many-trace-0', exact: true }).count(), 'the newest left the document').toBe(0);
        expect(await traceRows().count()).toBeLessThan(60);
        // Unfolded, the chart stays so across a reload (this browser remembers); folded again, it is a strip.
        await ui.page.evaluate('window.scrollTo(0, 0)');
        await strip.getByRole('button', { name: /Show chart/ }).click();
        await ui.page.getByRole('img', { name: 'Traces and errors over time' }).waitFor();
        await ui.page.reload();
        await ui.page.getByRole('img', { name: 'Traces and errors over time' }).waitFor();
        await ui.page.getByRole('button', { name: /Fold chart/ }).click();
        await expect.poll(() => ui.page.getByRole('img', { name: 'Traces and errors over time' }).count(), { timeout: ACTION_MS }).toBe(0);
      } finally {
        await ui.page.setViewportSize({ width: 1440, height: 900 });
        await ui.page.goto(`/projects/${ui.projectId}/traces`);
      }
    },
  );

  step("shows a trace's root run's scores beside its own, each root one marked", async () => {
    const server = ui.dashboard.server.url;
    for (const [path, body] of [
      ['traces/many-0/scores', { name: 'thumbs', value: true }],
      ['runs/many-0/scores', { name: 'correctness', value: 0.9 }],
      ['runs/many-1/scores', { name: 'correctness', value: 0.4 }],
      ['runs/many-1-llm/scores', { name: 'child-only', value: 1 }],
    ] as const)
      expect((await apiCall(server, ui.token, 'POST', `/v1/projects/${manyProject}/${path}`, body)).status).toBe(201);
    await ui.page.goto(`/projects/${manyProject}/traces`);
    /** The row's score chips, each chip's text (its marker's words too), or its cell's "—". */
    const scoresOf = async (name: string) => {
      const cell = rows()
        .filter({ has: ui.page.getByRole('link', { name, exact: true }) })
        .locator('.sl-rr-scores');
      const chips = await cell.locator('.sl-score-chip').allTextContents();
      return chips.length > 0 ? chips.map((chip) => chip.replace(/\s+/g, ' ').trim()) : [(await cell.textContent())?.trim()];
    };
    await expect.poll(() => scoresOf('many-trace-0'), { timeout: ACTION_MS }).toEqual(['thumbs ✓ true', 'root run’s score: correctness 0.9']);
    // An experiment's or evaluator's trace: scored on its root run only, not "—"; a child run's score is not the trace's.
    expect(await scoresOf('many-trace-1')).toEqual(['root run’s score: correctness 0.4']);
    expect(await scoresOf('many-trace-2')).toEqual(['—']);
    // The score column offers the root's score names and shows the root's value.
    await ui.page.getByRole('combobox', { name: 'Score column' }).selectOption('correctness');
    await expect.poll(() => scoresOf('many-trace-1'), { timeout: ACTION_MS }).toEqual(['root run’s score: 0.4']);
    await ui.page.goto(`/projects/${ui.projectId}/traces`);
  });

  step('searches with q: only the traces whose runs mention the words', async () => {
    await ui.page.getByRole('searchbox', { name: 'Search inputs, outputs, errors and names' }).fill('invoice');
    await ui.page.getByRole('button', { name: 'Search', exact: true }).click();
    await ui.page.waitForURL(/[?&]q=invoice/);
    await expect.poll(async () => rows().count(), { timeout: ACTION_MS }).toBe(2);
    await expect(rows().nth(1).textContent()).resolves.toContain('Can you split the invoice?');
    await ui.page.goto(`/projects/${ui.projectId}/traces?range=24h`);
  });

  step('sorts by start time from the column heading, oldest first and back, held in the URL; the runs list too', async () => {
    const heading = ui.page.getByRole('columnheader', { name: /^Trace/ });
    await expect(heading.getAttribute('aria-sort')).resolves.toBe('descending');
    await expect(rows().nth(1).textContent()).resolves.toContain('weather-bot');
    await heading.getByRole('button').click();
    await ui.page.waitForURL(/[?&]order=asc/);
    await expect.poll(async () => heading.getAttribute('aria-sort'), { timeout: ACTION_MS }).toBe('ascending');
    await expect.poll(async () => (await rows().nth(1).textContent()) ?? '', { timeout: ACTION_MS }).toContain('Where is my refund for order 42?');
    await expect(rows().nth(2).textContent()).resolves.toContain('Can you split the invoice?');
    await expect(rows().nth(3).textContent()).resolves.toContain('weather-bot');
    await expect(ui.page.getByRole('status').filter({ hasText: 'shown' }).textContent()).resolves.toBe('3 shown, oldest first');
    await heading.getByRole('button').click();
    await expect.poll(() => new URL(ui.page.url()).searchParams.get('order'), { timeout: ACTION_MS }).toBeNull();
    await expect.poll(async () => (await rows().nth(1).textContent()) ?? '', { timeout: ACTION_MS }).toContain('weather-bot');
    // The runs list: the first run of the window first (the first turn's agent), its heading saying so.
    await ui.page.goto(`/projects/${ui.projectId}/runs?range=24h&order=asc`);
    const runRows = ui.page.getByRole('table', { name: 'Runs' }).getByRole('row');
    await expect.poll(async () => (await runRows.nth(1).textContent()) ?? '', { timeout: ACTION_MS }).toContain('support-agent');
    await expect(ui.page.getByRole('columnheader', { name: /^Name and start/ }).getAttribute('aria-sort')).resolves.toBe('ascending');
    await ui.page.goto(`/projects/${ui.projectId}/traces?range=24h`);
  });

  step('saves the current filters as a view of its own, and applies it later', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces?q=invoice&kind=llm`);
    await expect.poll(async () => rows().count(), { timeout: ACTION_MS }).toBe(2);
    await ui.page.getByRole('textbox', { name: 'Name of the new view' }).fill('LLM calls about invoices');
    await ui.page.getByRole('button', { name: 'Save view' }).click();
    const views = ui.page.getByRole('group', { name: 'Saved views' }).getByRole('combobox');
    await expect.poll(async () => views.locator('option').allTextContents(), { timeout: ACTION_MS }).toContain('LLM calls about invoices');
    await ui.page.goto(`/projects/${ui.projectId}/traces`);
    await expect.poll(async () => rows().count(), { timeout: ACTION_MS }).toBe(4);
    await views.selectOption({ label: 'LLM calls about invoices' });
    await ui.page.waitForURL(/q=invoice/);
    expect(new URL(ui.page.url()).searchParams.get('kind')).toBe('llm');
    await expect.poll(async () => rows().count(), { timeout: ACTION_MS }).toBe(2);
    await ui.page.goto(`/projects/${ui.projectId}/traces?range=24h`);
  });

  step('exports the traces it shows as NDJSON, counting them as they stream, then saves the file', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces`);
    await rows().filter({ hasText: 'weather-bot' }).waitFor();
    const download = ui.page.waitForEvent('download');
    await ui.page.getByRole('button', { name: 'Export traces' }).click();
    const file = await download;
    await ui.page.getByRole('group', { name: 'Export traces' }).getByText('3 traces exported').waitFor();
    const path = await file.path();
    const lines = (await import('node:fs'))
      .readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => l.name ?? l.cursor)).toEqual(['weather-bot', 'support-agent', 'support-agent', null]);
    await ui.page.goto(`/projects/${ui.projectId}/traces?range=24h`);
  });

  step('zooms the window by dragging over the chart: the URL and the rows follow', async () => {
    await rows().filter({ hasText: 'weather-bot' }).waitFor();
    // The chart starts folded to a strip: unfold it (folded again at the end of the step).
    await ui.page.getByRole('button', { name: /Show chart/ }).click();
    const chart = ui.page.getByRole('img', { name: 'Traces and errors over time' });
    await expect.poll(async () => ui.page.locator('rect[data-point]').count(), { timeout: ACTION_MS }).toBeGreaterThanOrEqual(24);
    // The hour of the conversation's two traces: its bar is the tallest; a click there drills into it.
    const bars = chart.locator('rect.chart-bar.primary');
    const counts = await bars.evaluateAll((els) => els.map((el) => Number(/traces (\d+)/.exec(el.querySelector('title')?.textContent ?? '')?.[1] ?? 0)));
    const tallest = counts.indexOf(Math.max(...counts));
    expect(counts[tallest], counts.join(',')).toBe(2);
    const bar = (await bars.nth(tallest).boundingBox())!;
    await ui.page.mouse.move(bar.x + bar.width / 2, bar.y + 2);
    await ui.page.mouse.down();
    await ui.page.mouse.up();
    await ui.page.waitForURL(/startedAfter=.*startedBefore=/);
    // The drilled hour's traces only: the conversation's two, not the later one.
    await expect
      .poll(
        async () =>
          (await rows().allTextContents()).slice(1).map((text) => (text.includes('weather-bot') ? 'weather' : text.includes('support-agent') ? 'turn' : '?')),
        {
          timeout: ACTION_MS,
        },
      )
      .toEqual(['turn', 'turn']);
    await ui.page.getByRole('button', { name: 'Reset zoom' }).click();
    await expect.poll(async () => ui.page.url(), { timeout: ACTION_MS }).not.toContain('startedAfter');
    await ui.page.getByRole('button', { name: /Fold chart/ }).click();
  });

  step('opens a trace as a waterfall, its failed run marked, and a model call beside it as a conversation', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces/turn-1`);
    const waterfall = ui.page.getByRole('table', { name: 'Runs of the trace on a time axis' });
    await waterfall.getByRole('row').filter({ hasText: 'lookup_order' }).waitFor();
    await expect(waterfall.getByRole('row').count()).resolves.toBe(4); // the axis and three runs
    await expect(waterfall.getByRole('row').filter({ hasText: 'lookup_order' }).getByLabel('failed').count()).resolves.toBe(1);
    // Bars at their true offsets: the tool starts after the model call ends.
    const left = async (id: string) => (await ui.page.locator(`[data-run="${id}"]`).boundingBox())!.x;
    expect(await left('turn-1-tool')).toBeGreaterThan(await left('turn-1-llm'));
    if (README_SHOTS) await screenshot(ui.page, join(README_SHOTS, 'trace.png'));

    await waterfall.getByRole('button', { name: /chat gpt-4o/ }).click();
    await ui.page.waitForURL(/\?run=turn-1-llm/);
    const input = ui.page.getByRole('list', { name: 'Input' });
    // Rendered as Markdown once the renderer's chunk has loaded (the text as written until then).
    await input.getByRole('heading', { name: 'Refund policy' }).waitFor();
    await expect(input.locator('pre code').textContent()).resolves.toBe('select * from orders where id = 42\n');
    // Highlighted by its language.
    await expect(input.locator('pre code .hljs-keyword').allTextContents()).resolves.toEqual(['select', 'from', 'where']);
    await expect(input.locator('strong').textContent()).resolves.toBe('briefly');
    // A GFM table is a table, not pipes.
    const table = input.getByRole('table');
    await expect(table.getByRole('columnheader').allTextContents()).resolves.toEqual(['Plan', 'Refund window']);
    await expect(table.getByRole('row').nth(1).getByRole('cell').allTextContents()).resolves.toEqual(['Pro', '30 days']);
    await expect(input.getByText('| Plan', { exact: false }).count()).resolves.toBe(0);
    await expect(input.locator('.sl-msg-role').allTextContents()).resolves.toEqual(['system', 'user']);
    const output = ui.page.getByRole('list', { name: 'Output' });
    await expect(output.textContent()).resolves.toMatch(/Tool call\s*lookup_order.*"orderId": 42.*Your refund was issued on Monday\./s);
    await expect(ui.page.getByText('tool_call').count()).resolves.toBe(0); // no JSON until asked for
    await expect(ui.page.getByRole('complementary').textContent()).resolves.toMatch(/computed at the built-in price of gpt-4o/);
    if (README_SHOTS) await screenshot(ui.page, join(README_SHOTS, 'conversation.png'));
    await ui.page.getByRole('button', { name: 'Raw JSON' }).first().click();
    await expect.poll(async () => ui.page.getByRole('list', { name: 'Input' }).count(), { timeout: ACTION_MS }).toBe(0);
    await expect(ui.page.getByRole('region', { name: 'Input' }).textContent()).resolves.toContain('messages');
  });

  step('puts the error first: the header names the failed run and its error, "Errors only" and find-in-trace reach it, its link opens it', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces/turn-1`);
    const failure = ui.page.locator('.sl-failure');
    await expect(failure.textContent({ timeout: ACTION_MS })).resolves.toBe('✕ lookup_order failed: TimeoutError: orders service did not answer');
    const waterfall = ui.page.getByRole('table', { name: 'Runs of the trace on a time axis' });
    const names = () => waterfall.locator('.sl-wf-run').evaluateAll((buttons) => buttons.map((b) => b.childNodes[b.childNodes.length - 2]?.textContent ?? ''));
    await expect.poll(names, { timeout: ACTION_MS }).toEqual(['support-agent', 'chat gpt-4o', 'lookup_order']);
    // Errors only: the failed run with its ancestors, kept in the URL.
    await ui.page.getByRole('checkbox', { name: /Errors only/ }).check();
    await expect.poll(names, { timeout: ACTION_MS }).toEqual(['support-agent', 'lookup_order']);
    await expect.poll(() => new URL(ui.page.url()).searchParams.get('errors'), { timeout: ACTION_MS }).toBe('1');
    await ui.page.getByRole('checkbox', { name: /Errors only/ }).uncheck();
    // Find in trace reads errors, inputs and outputs too (whole words), not only names.
    const find = ui.page.getByRole('searchbox', { name: 'Find in trace' });
    await find.fill('orders service');
    await expect.poll(names, { timeout: ACTION_MS }).toEqual(['support-agent', 'lookup_order']);
    await find.fill('Monday');
    await expect.poll(names, { timeout: ACTION_MS }).toEqual(['support-agent', 'chat gpt-4o']);
    await find.fill('');
    // The failed run's link opens it beside the waterfall.
    await failure.getByRole('link', { name: 'lookup_order' }).click();
    await ui.page.waitForURL(/\?run=turn-1-tool/);
    await expect.poll(() => ui.page.getByRole('complementary').textContent(), { timeout: ACTION_MS }).toContain('TimeoutError: orders service did not answer');
  });

  step('opens a deep link to a run far down a big trace scrolled to it, highlighted', async () => {
    const runs = [
      { id: 'big', name: 'batch-job', kind: 'chain', status: 'succeeded', startTime: at(100 * MIN), endTime: at(100 * MIN + 400_000) },
      ...Array.from({ length: 400 }, (_, i) => ({
        id: `big-${i}`,
        parentRunId: 'big',
        name: `step ${i}`,
        kind: 'tool',
        status: 'succeeded',
        startTime: at(100 * MIN + i * 1000),
        endTime: at(100 * MIN + i * 1000 + 500),
      })),
    ];
    for (let i = 0; i < runs.length; i += 200) {
      const batch = await apiCall(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${ui.projectId}/runs/batch`, { runs: runs.slice(i, i + 200) });
      expect(batch.status).toBe(200);
    }
    await ui.page.goto(`/projects/${ui.projectId}/traces/big?run=big-350`);
    const row = ui.page.locator('.sl-vrow.selected');
    await row.waitFor({ timeout: ACTION_MS });
    await expect(row.textContent()).resolves.toContain('step 350');
    // In view: inside the waterfall's scrolling box, and inside the window.
    const box = (await ui.page.locator('.sl-waterfall .sl-vbox').boundingBox())!;
    const at350 = (await row.boundingBox())!;
    expect(at350.y).toBeGreaterThanOrEqual(box.y);
    expect(at350.y + at350.height).toBeLessThanOrEqual(box.y + box.height + 1);
    expect(at350.y + at350.height).toBeLessThanOrEqual(900);
  });

  step("reads the list's first page before the chart's metrics: the first rows never wait behind a range's totals", async () => {
    // The list's request is held; a chart read beside it would be asked for meanwhile (and on SQLite, a month
    // of a busy project's metrics holds the one thread the list's page then waits for).
    const asked: string[] = [];
    const prefix = `/v1/projects/${manyProject}/`;
    const listen = (request: { url(): string }) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith(prefix)) asked.push(path.slice(prefix.length));
    };
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const list = (url: URL) => url.pathname === `${prefix}traces`;
    await ui.page.route(list, async (route) => {
      await held;
      await route.continue();
    });
    ui.page.on('request', listen);
    try {
      await ui.page.goto(`/projects/${manyProject}/traces`);
      await expect.poll(() => asked.includes('traces'), { timeout: ACTION_MS }).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(
        asked.filter((path) => path.endsWith('/metrics')),
        'metrics asked for while the list was held',
      ).toEqual([]);
      release();
      await ui.page.getByRole('table', { name: 'Traces' }).getByRole('rowgroup', { name: 'Traces: rows' }).getByRole('row').first().waitFor();
      await expect.poll(() => asked.includes('traces/metrics'), { timeout: ACTION_MS }).toBe(true);
      const strip = ui.page.getByRole('region', { name: 'Traces and errors' });
      await expect.poll(async () => (await strip.getByRole('definition').first().textContent()) ?? '', { timeout: ACTION_MS }).toBe(String(MANY));
    } finally {
      release();
      ui.page.off('request', listen);
      await ui.page.unroute(list);
    }
  });

  step("draws a big trace's first runs while the rest of its outline is on its way", async () => {
    // The whole outline (the request without runLimit) is held until the first runs are drawn: a page
    // that waited for it would draw nothing. Held, then sent on to the server as it was.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const whole = (url: URL) => url.pathname === `/v1/projects/${ui.projectId}/traces/big` && !url.searchParams.has('runLimit');
    await ui.page.route(whole, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await ui.page.goto(`/projects/${ui.projectId}/traces/big`);
      const status = ui.page.locator('.sl-waterfall [role="status"]');
      await expect.poll(() => status.textContent(), { timeout: ACTION_MS }).toBe('300 runs of 401, loading the rest…');
      await ui.page.getByRole('button', { name: /^step 0\b/ }).waitFor({ timeout: ACTION_MS });
      release();
      await expect.poll(() => status.textContent(), { timeout: ACTION_MS }).toBe('401 runs');
    } finally {
      release();
      await ui.page.unroute(whole);
    }
  });

  step('answers the keyboard: / searches, j and k move between rows, Enter opens one, Esc closes the run beside a trace, ? lists the keys', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces`);
    const links = ui.page.getByRole('table', { name: 'Traces' }).locator('[data-row-link]');
    await links.first().waitFor({ timeout: ACTION_MS });
    const focused = () => ui.page.evaluate<string>("document.activeElement?.textContent ?? ''");
    await ui.page.locator('main').focus();
    await ui.page.keyboard.press('/');
    await expect(ui.page.evaluate<string | undefined>('document.activeElement?.type')).resolves.toBe('search');
    await ui.page.keyboard.press('Tab'); // out of the box: letters are shortcuts again
    await ui.page.locator('main').focus();
    await ui.page.keyboard.press('j');
    const first = await links.nth(0).textContent();
    await expect(focused()).resolves.toBe(first);
    await ui.page.keyboard.press('j');
    await expect(focused()).resolves.toBe(await links.nth(1).textContent());
    await ui.page.keyboard.press('k');
    await expect(focused()).resolves.toBe(first);
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForURL(/\/traces\/[^/?]+$/);
    // Esc closes the run opened beside the waterfall.
    await ui.page.goto(`/projects/${ui.projectId}/traces/turn-1?run=turn-1-llm`);
    await ui.page.getByRole('complementary').waitFor({ timeout: ACTION_MS });
    await ui.page.locator('main').focus();
    await ui.page.keyboard.press('Escape');
    await ui.page.waitForURL(/\/traces\/turn-1$/);
    await expect(ui.page.getByRole('complementary').count()).resolves.toBe(0);
    // ? lists the keys; Esc closes the list.
    await ui.page.keyboard.press('?');
    const help = ui.page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor({ timeout: ACTION_MS });
    await expect(help.locator('dt').allTextContents()).resolves.toEqual(['/', 'j / k', 'Enter', 'Esc', '?']);
    await ui.page.keyboard.press('Escape');
    await expect.poll(() => help.isVisible(), { timeout: ACTION_MS }).toBe(false);
  });

  step("offers the project's values in the filters as one types: names, models, sessions, users, metadata keys and a key's values", async () => {
    await ui.page.goto(`/projects/${ui.projectId}/runs`);
    await ui.page.getByRole('button', { name: /Filters/ }).click();
    const form = ui.page.getByRole('search', { name: 'Run filters' });
    const offered = async (label: string) => {
      const input = form.getByRole('combobox', { name: label, exact: true });
      const list = await input.getAttribute('list');
      return ui.page.locator(`datalist[id="${list}"] option`).evaluateAll((options) => options.map((o) => o.getAttribute('value')));
    };
    await form.getByRole('combobox', { name: 'Model', exact: true }).fill('gpt');
    await expect.poll(() => offered('Model'), { timeout: ACTION_MS }).toEqual(['gpt-4o']);
    await form.getByRole('combobox', { name: 'Name', exact: true }).fill('');
    await form.getByRole('combobox', { name: 'Name', exact: true }).focus();
    // At most 50 at once, in code-point order (the big trace's 400 "step N" names among them); typing narrows them.
    await expect.poll(async () => (await offered('Name')).slice(0, 3), { timeout: ACTION_MS }).toEqual(['batch-job', 'chat gpt-4o', 'forecast model']);
    await expect(offered('Name').then((names) => names.length)).resolves.toBe(50);
    await form.getByRole('combobox', { name: 'Name', exact: true }).fill('su');
    await expect.poll(() => offered('Name'), { timeout: ACTION_MS }).toEqual(['support-agent']);
    await form.getByRole('combobox', { name: 'Session', exact: true }).fill('conv');
    await expect.poll(() => offered('Session'), { timeout: ACTION_MS }).toEqual(['conv-1']);
    await form.getByRole('combobox', { name: 'User', exact: true }).focus();
    await expect.poll(() => offered('User'), { timeout: ACTION_MS }).toEqual(['ada']);
    await form.getByRole('combobox', { name: 'Metadata key', exact: true }).focus();
    await expect.poll(() => offered('Metadata key'), { timeout: ACTION_MS }).toEqual(['customer', 'region']);
    // A key's values, once the key is chosen.
    await form.getByRole('combobox', { name: 'Metadata key', exact: true }).fill('customer');
    await form.getByRole('combobox', { name: 'Metadata value', exact: true }).focus();
    await expect.poll(() => offered('Metadata value'), { timeout: ACTION_MS }).toEqual(['c_17']);
  });

  step('folds a 120-message input to its first and last messages, opening the middle 50 at a time', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/traces/weather?run=weather-llm`);
    const input = ui.page.getByRole('list', { name: 'Input' });
    await input.getByText('forecast line 120').waitFor();
    const texts = () => input.locator('.sl-msg-body').allTextContents();
    await expect(texts()).resolves.toEqual([
      'forecast line 1',
      'forecast line 2',
      'forecast line 3',
      'forecast line 4',
      'forecast line 117',
      'forecast line 118',
      'forecast line 119',
      'forecast line 120',
    ]);
    await expect(input.textContent()).resolves.toContain('112 messages hidden');
    await input.getByRole('button', { name: 'Show 50 more' }).click();
    await expect.poll(async () => (await texts()).length, { timeout: ACTION_MS }).toBe(58);
    await expect(input.textContent()).resolves.toContain('62 messages hidden');
    expect((await texts()).slice(3, 6)).toEqual(['forecast line 4', 'forecast line 5', 'forecast line 6']);
    await input.getByRole('button', { name: 'Show 50 more' }).click();
    await input.getByRole('button', { name: 'Show 12 more' }).click();
    await expect.poll(async () => (await texts()).length, { timeout: ACTION_MS }).toBe(120);
    await expect(texts()).resolves.toEqual(Array.from({ length: 120 }, (_, i) => `forecast line ${i + 1}`));
  });

  step('reads the session as its conversation, turn by turn, and lists the sessions', async () => {
    await ui.page.goto(`/projects/${ui.projectId}/sessions/conv-1`);
    const turns = ui.page.getByRole('list', { name: 'The conversation, turn by turn' });
    // Each turn's messages are read when it comes into view: both, on a busy machine, in their time.
    await turns.getByText('Your refund was issued on Monday.').waitFor();
    await turns.getByText('Yes, I split the invoice in two.').waitFor();
    await expect(turns.textContent()).resolves.toMatch(
      /Turn 1.*Where is my refund for order 42\?.*Your refund was issued on Monday\..*Turn 2.*Can you split the invoice\?.*Yes, I split the invoice in two\./s,
    );
    // Each turn says what failed in it.
    await expect
      .poll(() => turns.locator('.sl-failure').allTextContents(), { timeout: ACTION_MS })
      .toEqual(['✕ lookup_order failed: TimeoutError: orders service did not answer', '✕ lookup_order failed: TimeoutError: orders service did not answer']);
    await turns.locator('.sl-failure').first().getByRole('link', { name: 'lookup_order' }).click();
    await ui.page.waitForURL(/\/traces\/turn-1\?run=turn-1-tool$/);
    await ui.page.goBack();
    await ui.page.getByRole('link', { name: 'Sessions', exact: true }).first().click();
    await ui.page.getByRole('link', { name: 'conv-1' }).waitFor();
  });

  step("lists an end user's traces as traces, each naming its session, not as turns of one conversation", async () => {
    await ui.page.goto(`/projects/${ui.projectId}/users/ada`);
    const traces = ui.page.getByRole('list', { name: 'Their traces, oldest first' });
    await traces.getByText('Your refund was issued on Monday.').waitFor();
    const text = await traces.textContent();
    expect(text).toMatch(/Trace 1.*support-agent.*session conv-1.*Where is my refund for order 42\?.*Trace 2.*support-agent.*session conv-1/s);
    expect(text).not.toContain('Turn');
    await traces.getByRole('link', { name: 'conv-1' }).first().click();
    await ui.page.waitForURL(/\/sessions\/conv-1$/);
  });

  step('is readable in dark mode (the system setting): messages and the selected waterfall row keep their contrast', async () => {
    await ui.page.emulateMedia({ colorScheme: 'dark' });
    try {
      await ui.page.goto(`/projects/${ui.projectId}/traces/turn-1?run=turn-1-llm`);
      await ui.page.getByRole('list', { name: 'Input' }).getByText('Refund policy').waitFor();
      // WCAG's contrast ratio of each element's text colour against its own background (AA: at least 4.5).
      const contrasts = await ui.page.evaluate<[string, number][]>(`(() => {
        const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
        const lum = ([r, g, b]) => [r, g, b].map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
        return [...document.querySelectorAll('.sl-msg, .sl-wf-run.selected')].map((el) => {
          const style = getComputedStyle(el);
          const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))];
          return [el.className, Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 10) / 10];
        });
      })()`);
      expect(
        contrasts.some(([name]) => name.includes('selected')),
        JSON.stringify(contrasts),
      ).toBe(true);
      expect(contrasts.filter(([name]) => name.startsWith('sl-msg')).length, JSON.stringify(contrasts)).toBeGreaterThanOrEqual(3);
      expect(
        contrasts.filter(([, ratio]) => ratio < 4.5),
        'elements below 4.5:1',
      ).toEqual([]);
    } finally {
      await ui.page.emulateMedia({ colorScheme: 'light' });
    }
  });

  step('switches to dark and back from the top bar, kept across reloads, whatever the system says', async () => {
    await ui.page.emulateMedia({ colorScheme: 'light' });
    await ui.page.goto(`/projects/${ui.projectId}/traces/turn-1?run=turn-1-llm`);
    await ui.page.getByRole('list', { name: 'Input' }).getByText('Refund policy').waitFor();
    const theme = () => ui.page.evaluate<string | undefined>('document.documentElement.dataset.theme');
    const background = () => ui.page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(await theme()).toBe('light');
    const light = await background();
    await ui.page.getByRole('combobox', { name: 'Theme', exact: true }).selectOption('dark');
    await expect.poll(theme, { timeout: ACTION_MS }).toBe('dark');
    expect(await background()).not.toBe(light);
    await ui.page.reload();
    await ui.page.getByRole('list', { name: 'Input' }).getByText('Refund policy').waitFor();
    expect(await theme()).toBe('dark');
    await expect(ui.page.getByRole('combobox', { name: 'Theme', exact: true }).inputValue()).resolves.toBe('dark');
    await ui.page.getByRole('combobox', { name: 'Theme', exact: true }).selectOption('system');
    await expect.poll(theme, { timeout: ACTION_MS }).toBe('light');
    expect(await background()).toBe(light);
  });

  step('reads a conversation with long code and long links at phone width: nothing overflows the screen or is clipped', async () => {
    const project = await apiCall<{ id: string }>(ui.dashboard.server.url, ui.token, 'POST', '/v1/projects', { name: 'phone-conversation' });
    const longLine = `select ${Array.from({ length: 40 }, (_, i) => `column_${i}`).join(', ')} from orders where id = 42`;
    const longLink = `https://docs.example.test/${'refunds/'.repeat(30)}policy`;
    const messages = [
      { role: 'system', content: `Answer with SQL:\n\n\`\`\`sql\n${longLine}\n\`\`\`` },
      { role: 'user', content: `What does ${longLink} say about ${'x'.repeat(300)}?` },
    ];
    const runs = [
      {
        id: 'phone-root',
        name: 'phone-agent',
        kind: 'agent',
        status: 'succeeded',
        startTime: at(0),
        endTime: at(3000),
        sessionId: 'phone-1',
        inputs: { messages },
      },
      {
        id: 'phone-llm',
        parentRunId: 'phone-root',
        name: 'phone model',
        kind: 'llm',
        status: 'succeeded',
        startTime: at(100),
        endTime: at(2900),
        model: 'gpt-4o',
        sessionId: 'phone-1',
        inputs: { messages },
        outputs: { messages: [{ role: 'assistant', content: `See ${longLink}\n\n\`\`\`sql\n${longLine}\n\`\`\`` }] },
      },
    ];
    const batch = await apiCall<{ results: { status: string }[] }>(ui.dashboard.server.url, ui.token, 'POST', `/v1/projects/${project.body.id}/runs/batch`, {
      runs,
    });
    expect(batch.body.results.map((r) => r.status)).toEqual(['created', 'created']);
    await ui.page.setViewportSize({ width: 390, height: 844 });
    try {
      const base = `/projects/${project.body.id}`;
      for (const path of [`${base}/traces/phone-root?run=phone-llm`, `${base}/runs/phone-llm`, `${base}/sessions/phone-1`]) {
        await ui.page.goto(path);
        await ui.page.getByRole('heading', { level: 1 }).first().waitFor();
        await ui.page.getByText('docs.example.test', { exact: false }).first().waitFor();
        await ui.page.waitForLoadState('networkidle').catch(() => {});
        // Every message, and every code block in one, ends within the screen: long lines scroll inside their block.
        await expectWithinScreen(ui.page, path, 390, 1);
      }
    } finally {
      await ui.page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  step("previews a model call recorded by the SDK's wrapOpenAI (the real openai package) by its messages, not its JSON", async () => {
    const openaiApi = await startOpenAiServer();
    try {
      const project = await apiCall<{ id: string }>(ui.dashboard.server.url, ui.token, 'POST', '/v1/projects', { name: 'wrapped-openai' });
      const tracer = new Sightline({ baseUrl: ui.dashboard.server.url, token: ui.token }).tracer(project.body.id);
      const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: openaiApi.baseURL, maxRetries: 0 }), tracer);
      await openai.chat.completions.create({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'Weather in Paris today?' }] });
      await tracer.shutdown();
      await ui.page.goto(`/projects/${project.body.id}/traces`);
      const row = rows().filter({ hasText: 'Weather in Paris today?' });
      await row.waitFor();
      // The answer's text, as the run page shows it; the stored outputs are `{ choices: [{ message, finishReason }] }`.
      await expect(row.textContent()).resolves.toContain(ANSWER);
      await expect(row.textContent()).resolves.not.toContain('choices');
      await ui.page.goto(`/projects/${project.body.id}/runs`);
      const run = ui.page.getByRole('row').filter({ hasText: 'Weather in Paris today?' });
      await run.waitFor();
      await expect(run.textContent()).resolves.toContain(ANSWER);
    } finally {
      await openaiApi.close();
    }
  });

  step(
    "shows a retriever traced by OpenInference's LangChain instrumentation (the OTLP protobuf exporter) as its query and the documents it found",
    async () => {
      class Shelf extends BaseRetriever {
        override lc_namespace = ['test', 'shelf'];
        override async _getRelevantDocuments(query: string): Promise<Document[]> {
          return [
            new Document({ pageContent: `Refunds for **${query}** take 5 days.`, metadata: { source: 'faq.md', page: 2 } }),
            new Document({ pageContent: 'Orders ship within 2 days.', metadata: { source: 'shipping.md' } }),
          ];
        }
      }
      const exporter = new OTLPTraceExporter({
        url: `${ui.dashboard.server.url}/v1/traces`,
        headers: { Authorization: `Bearer ${ui.token}`, 'Sightline-Project': 'rag-bot' },
      });
      const provider = new BasicTracerProvider({
        resource: resourceFromAttributes({ 'service.name': 'rag-bot' }),
        spanProcessors: [new SimpleSpanProcessor(exporter)],
      });
      const instrumentation = new LangChainInstrumentation();
      instrumentation.manuallyInstrument(CallbackManagerModule);
      instrumentation.setTracerProvider(provider);
      try {
        await new Shelf().invoke('order 42');
        await provider.forceFlush();
      } finally {
        instrumentation.disable();
        await provider.shutdown();
      }
      const projects = await apiCall<{ items: { id: string; name: string }[] }>(ui.dashboard.server.url, ui.token, 'GET', '/v1/projects?name=rag-bot');
      const projectId = projects.body.items.find((p) => p.name === 'rag-bot')!.id;
      const runs = await apiCall<{ items: { id: string; traceId: string }[] }>(
        ui.dashboard.server.url,
        ui.token,
        'GET',
        `/v1/projects/${projectId}/runs?kind=retriever`,
      );
      expect(runs.body.items).toHaveLength(1);
      const [run] = runs.body.items;
      for (const path of [`/projects/${projectId}/runs/${run!.id}`, `/projects/${projectId}/traces/${run!.traceId}?run=${run!.id}`]) {
        await ui.page.goto(path);
        const input = ui.page.getByRole('region', { name: /^Inputs?$/ });
        // The query as text, not as a user's chat message.
        await expect(input.locator('.sl-query').textContent({ timeout: ACTION_MS })).resolves.toBe('order 42');
        await expect(input.locator('.sl-msg').count()).resolves.toBe(0);
        const documents = ui.page.getByRole('list', { name: /^Outputs?: 2 documents$/ });
        await documents.waitFor({ timeout: ACTION_MS });
        const items = documents.getByRole('listitem');
        await items.nth(0).locator('strong').waitFor();
        await expect(items.nth(0).textContent()).resolves.toMatch(/^#1Refunds for order 42 take 5 days\.Metadata/);
        await expect(items.nth(0).locator('strong').textContent()).resolves.toBe('order 42');
        await items.nth(0).getByText('Metadata').click();
        await expect(items.nth(0).locator('pre').textContent()).resolves.toContain('"source": "faq.md"');
        await expect(items.nth(1).textContent()).resolves.toMatch(/^#2Orders ship within 2 days\./);
        // Retrieved documents are the outputs, not metadata.
        await expect(ui.page.getByText('retrieval.documents', { exact: false }).count()).resolves.toBe(0);
      }
      await ui.page.goto(`/projects/${projectId}/traces`);
      // The trace's preview: how many documents, and the first one's text.
      await rows().filter({ hasText: '2 documents: Refunds for **order 42** take 5 days.' }).waitFor({ timeout: ACTION_MS });
    },
  );

  step(
    'an empty project shows its id, mints a token and gives whole programs to send with; it turns into the traces list when the first trace arrives',
    async () => {
      const project = await apiCall<{ id: string }>(ui.dashboard.server.url, ui.token, 'POST', '/v1/projects', { name: 'brand-new' });
      const projectId = project.body.id;
      await ui.page.goto(`/projects/${projectId}/traces`);
      const onboarding = ui.page.getByRole('region', { name: 'Send the first trace to brand-new' });
      await onboarding.waitFor({ timeout: ACTION_MS });
      await expect(onboarding.textContent()).resolves.toContain(`Project id ${projectId}`);
      await onboarding.getByRole('button', { name: 'Create a token to send with' }).click();
      const secret = onboarding.locator('.sl-secret');
      await secret.waitFor({ timeout: ACTION_MS });
      const token = (await secret.textContent())!;
      expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/); // a signed token (JWS)
      // Ingest-only, for this project alone: it reads nothing.
      const me = await apiCall<{ token: { scopes: string[]; projectIds: string[] } }>(ui.dashboard.server.url, token, 'GET', '/v1/me');
      expect(me.body.token).toMatchObject({ scopes: ['runs:write'], projectIds: [projectId] });
      expect((await apiCall(ui.dashboard.server.url, token, 'GET', `/v1/projects/${projectId}/runs`)).status).toBe(403);
      // The snippets, reached by the keyboard (arrow keys between the tabs), each with the project and the token filled in.
      const tabs = onboarding.getByRole('tab');
      await expect(tabs.allTextContents()).resolves.toEqual(['TypeScript SDK', 'OpenTelemetry (Python)', 'OpenTelemetry (JavaScript)', 'curl']);
      const snippet = onboarding.getByRole('tabpanel').locator('pre');
      for (const [i, name] of ['TypeScript SDK', 'OpenTelemetry (Python)', 'OpenTelemetry (JavaScript)', 'curl'].entries()) {
        if (i === 0) await tabs.first().focus();
        else await ui.page.keyboard.press('ArrowRight');
        await expect(tabs.nth(i).getAttribute('aria-selected')).resolves.toBe('true');
        await expect(snippet.getAttribute('aria-label')).resolves.toBe(`${name} snippet`);
        const code = (await snippet.textContent())!;
        expect(code, name).toContain(token);
        expect(code, name).toContain(projectId);
      }
      await tabs.nth(3).click();
      const curl = (await snippet.textContent())!;
      // The JavaScript program, run as written with the real OpenTelemetry packages: the page shows its trace by itself.
      await tabs.nth(2).click();
      const program = join(ROOT, 'test-artifacts', `first-trace-${process.pid}.mjs`);
      mkdirSync(dirname(program), { recursive: true });
      writeFileSync(program, (await snippet.textContent())!);
      await promisify(execFile)(process.execPath, [program], { timeout: 60_000 });
      const table = ui.page.getByRole('table', { name: 'Traces' });
      await table.getByRole('row').filter({ hasText: 'first-trace' }).waitFor({ timeout: 20_000 });
      await expect(table.getByRole('row').filter({ hasText: 'first-trace' }).textContent()).resolves.toContain('Hello from Sightline');
      await expect(onboarding.count()).resolves.toBe(0);
      // The curl snippet, as shown and run as written by bash, stores a run too.
      expect(curl).toContain(token);
      const { stdout } = await promisify(execFile)('bash', ['-c', curl], { timeout: 30_000 });
      expect(JSON.parse(stdout)).toMatchObject({ name: 'first-trace', kind: 'llm', status: 'succeeded', outputs: { answer: 'Hello from Sightline' } });
    },
  );

  /** A project of the filter steps' own: two production conversations and an experiment's run (its result recorded). */
  const filtersProject = (() => {
    let made: Promise<{ projectId: string; experimentId: string }> | null = null;
    return () =>
      (made ??= (async () => {
        const call = <T = any>(method: string, path: string, body?: unknown) => apiCall<T>(ui.dashboard.server.url, ui.token, method, path, body);
        const project = await call<{ id: string }>('POST', '/v1/projects', { name: 'filters-project' });
        const ago = (min: number) => new Date(Date.now() - min * MIN).toISOString();
        const run = (id: string, name: string, min: number, extra: Record<string, unknown>) => ({
          id,
          name,
          kind: 'llm',
          status: 'succeeded',
          startTime: ago(min),
          endTime: ago(min - 1),
          ...extra,
        });
        const batch = await call<{ results: { status: string }[] }>('POST', `/v1/projects/${project.body.id}/runs/batch`, {
          runs: [
            run('billing-turn', 'support-agent', 30, { sessionId: 'chat-a', userId: 'ada', model: 'gpt-4o', tags: ['billing', 'eu'], inputs: 'Refund?' }),
            run('weather-turn', 'weather-bot', 20, { sessionId: 'chat-b', userId: 'bob', model: 'claude-3', tags: ['eu'], inputs: 'Rain?' }),
            run('exp-run', 'qa-task', 10, { sessionId: 'chat-exp', userId: 'eve', inputs: 'Item a' }),
          ],
        });
        expect(batch.body.results.map((r) => r.status)).toEqual(['created', 'created', 'created']);
        const dataset = await call<{ id: string }>('POST', '/v1/datasets', { name: 'filters-dataset' });
        expect((await call('POST', `/v1/datasets/${dataset.body.id}/items`, { items: [{ id: 'a', input: { q: 'a' } }] })).status).toBe(201);
        const experiment = await call<{ id: string }>('POST', '/v1/experiments', {
          name: 'filters-baseline',
          datasetId: dataset.body.id,
          projectId: project.body.id,
        });
        const recorded = await call('POST', `/v1/experiments/${experiment.body.id}/results`, {
          results: [{ itemId: 'a', runId: 'exp-run', output: 'A', latencyMs: 60_000 }],
        });
        expect(recorded.status).toBe(200);
        return { projectId: project.body.id, experimentId: experiment.body.id };
      })());
  })();
  const offeredIn = (form: ReturnType<typeof ui.page.getByRole>) => async (label: string) => {
    const list = await form.getByRole('combobox', { name: label, exact: true }).getAttribute('list');
    return ui.page.locator(`datalist[id="${list}"] option`).evaluateAll((options) => options.map((o) => o.getAttribute('value')));
  };
  const listedIn = (name: string) => () =>
    ui.page.getByRole('table', { name }).getByRole('row').locator('td:first-child, [role=cell]:first-child').allTextContents();

  step('filters sessions and users with the runs’ filter bar and its pickers, held in the URL', async () => {
    const { projectId } = await filtersProject();
    await ui.page.goto(`/projects/${projectId}/sessions`);
    await expect.poll(listedIn('Sessions'), { timeout: ACTION_MS }).toEqual(['chat-b', 'chat-a']);
    await ui.page.getByRole('button', { name: /Filters/ }).click();
    const form = ui.page.getByRole('search', { name: 'Run filters' });
    await form.getByRole('combobox', { name: 'Model', exact: true }).fill('gpt');
    await expect.poll(() => offeredIn(form)('Model'), { timeout: ACTION_MS }).toEqual(['gpt-4o']);
    await form.getByRole('combobox', { name: 'Model', exact: true }).fill('gpt-4o');
    await form.getByRole('button', { name: 'Apply filters' }).click();
    await ui.page.waitForURL(/[?&]model=gpt-4o/);
    await expect.poll(listedIn('Sessions'), { timeout: ACTION_MS }).toEqual(['chat-a']);
    await ui.page.getByRole('list', { name: 'Active filters' }).locator('code', { hasText: 'gpt-4o' }).waitFor();
    // The score filters are in the same bar.
    await expect(form.getByRole('combobox', { name: 'Score name', exact: true }).count()).resolves.toBe(1);
    // The users list, filtered from its URL; its pickers offer the project's users.
    await ui.page.goto(`/projects/${projectId}/users?model=claude-3`);
    await expect.poll(listedIn('Users'), { timeout: ACTION_MS }).toEqual(['bob']);
    await ui.page.getByRole('button', { name: /Filters/ }).click();
    await form.getByRole('combobox', { name: 'User', exact: true }).focus();
    await expect.poll(() => offeredIn(form)('User'), { timeout: ACTION_MS }).toEqual(['ada', 'bob', 'eve']);
  });

  step('picks tags one at a time from the project’s tags, as chips the keyboard adds and removes, a typed tag too', async () => {
    const { projectId } = await filtersProject();
    await ui.page.goto(`/projects/${projectId}/runs`);
    await ui.page.getByRole('button', { name: /Filters/ }).click();
    const form = ui.page.getByRole('search', { name: 'Run filters' });
    const tag = form.getByRole('combobox', { name: 'Tag', exact: true });
    await tag.focus();
    await expect.poll(() => offeredIn(form)('Tag'), { timeout: ACTION_MS }).toEqual(['billing', 'eu']);
    const chosen = () => form.getByRole('list', { name: 'Tags chosen' }).getByRole('listitem').locator('code').allTextContents();
    await tag.fill('billing');
    await tag.press('Enter');
    await tag.fill('eu');
    await tag.press('Enter');
    await expect.poll(chosen, { timeout: ACTION_MS }).toEqual(['billing', 'eu']);
    // Enter added the tag and did not submit the form; Backspace in the empty field takes the last one back.
    expect(new URL(ui.page.url()).searchParams.getAll('tag')).toEqual([]);
    await tag.press('Backspace');
    await expect.poll(chosen, { timeout: ACTION_MS }).toEqual(['billing']);
    await tag.fill('eu');
    await tag.press('Enter');
    await ui.page.evaluate(AXE);
    const violations = await ui.page.evaluate<{ id: string; impact: string }[]>(
      `axe.run(document.querySelector('form[aria-label="Run filters"]'), { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact })))`,
    );
    expect(violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')).toEqual([]);
    await form.getByRole('button', { name: 'Apply filters' }).click();
    await ui.page.waitForURL(/tag=billing&tag=eu/);
    await expect
      .poll(async () => ui.page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: 'weather-bot' }).count(), { timeout: ACTION_MS })
      .toBe(0);
    await ui.page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: 'support-agent' }).waitFor({ timeout: ACTION_MS });
    // A chip's own button removes it; a tag typed and not yet added is applied with the rest.
    await form.getByRole('button', { name: 'Remove tag billing' }).click();
    await tag.fill('nowhere');
    await form.getByRole('button', { name: 'Apply filters' }).click();
    await ui.page.waitForURL(/tag=eu&tag=nowhere/);
  });

  step(
    'keeps experiment traffic out of the lists by default; "Show experiment traffic" shows it with the rest or alone; the experiment still opens its trace',
    async () => {
      const { projectId, experimentId } = await filtersProject();
      await ui.page.goto(`/projects/${projectId}/traces`);
      const names = () => rows().locator('.sl-tr-name a').allTextContents();
      await expect.poll(names, { timeout: ACTION_MS }).toEqual(['weather-bot', 'support-agent']);
      const show = ui.page.getByRole('combobox', { name: 'Show experiment traffic' });
      await show.selectOption({ label: 'Only experiment traffic' });
      await ui.page.waitForURL(/[?&]experiment=only/);
      await expect.poll(names, { timeout: ACTION_MS }).toEqual(['qa-task']);
      await show.selectOption({ label: 'With production traffic' });
      await ui.page.waitForURL(/[?&]experiment=include/);
      await expect.poll(names, { timeout: ACTION_MS }).toEqual(['qa-task', 'weather-bot', 'support-agent']);
      await show.selectOption({ label: 'No (production only)' });
      await expect.poll(() => new URL(ui.page.url()).searchParams.has('experiment'), { timeout: ACTION_MS }).toBe(false);
      await expect.poll(names, { timeout: ACTION_MS }).toEqual(['weather-bot', 'support-agent']);
      // The sessions list too, with the same control.
      await ui.page.goto(`/projects/${projectId}/sessions?experiment=only`);
      await expect.poll(listedIn('Sessions'), { timeout: ACTION_MS }).toEqual(['chat-exp']);
      await expect(ui.page.getByRole('combobox', { name: 'Show experiment traffic' }).inputValue()).resolves.toBe('only');
      // The experiment's page still links its result's trace, which opens.
      await ui.page.goto(`/experiments/${experimentId}`);
      await ui.page.getByRole('link', { name: 'Trace of item a' }).click();
      await ui.page.waitForURL(/\/traces\/exp-run$/);
      await ui.page.getByText('qa-task').first().waitFor({ timeout: ACTION_MS });
    },
  );
});
