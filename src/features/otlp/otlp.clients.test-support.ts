// What the suites of real client libraries share (otlp.clients.*.test.ts): the app on a real port for
// the exporters, a project and its credentials, a tracer provider whose exports are recorded, and the
// exporters' own warnings (a partial success is only ever a diag warning on their side).
import type { AddressInfo } from 'node:net';
import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { TestContext } from '../../../test/helpers/harness.js';
import type { Json } from '../../../test/helpers/json.js';
import { otlpCaller } from './otlp.test-support.js';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
type Compression = NonNullable<ConstructorParameters<typeof ProtoExporter>[0]>['compression'];

/** The OpenTelemetry ExportResultCode of a successful export. */
export const SUCCESS = 0;

/**
 * Listens on a real port before the suite's tests (exporters speak HTTP to a socket, not to
 * `app.inject`), and collects what the exporters log as warnings or errors meanwhile. The harness
 * closes the app after the suite.
 */
export function listenForExporters(ctx: TestContext): { url: () => string; warnings: string[] } {
  let url = '';
  const warnings: string[] = [];
  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/v1/traces`;
    const keep = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
    const ignore = () => {};
    diag.setLogger({ error: keep, warn: keep, info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN);
  });
  // What a test registered globally (a NodeTracerProvider's register(): tracer provider, context
  // manager, propagator) does not outlive it.
  afterEach(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });
  afterAll(() => diag.disable());
  return { url: () => url, warnings };
}

/** A member of a fresh organization, a project of theirs, the exporter headers that send to it, and its runs. */
export async function exportTarget(ctx: TestContext) {
  const o = await otlpCaller(ctx);
  const project = await ctx.make.project(o.caller.organizationId);
  const runs = () => o.runs(project.id);
  return {
    project,
    headers: { Authorization: `Bearer ${o.caller.token}`, 'Sightline-Project': project.name },
    runs,
    /** The stored runs by id. */
    byId: async (): Promise<Map<string, Json>> => new Map((await runs()).map((run) => [run.id as string, run])),
  };
}

export type ExportTarget = Awaited<ReturnType<typeof exportTarget>>;

export type ExporterKind = 'proto' | 'proto+gzip' | 'json';

/** One of the OpenTelemetry OTLP/HTTP exporters, sending to the suite's server. */
export function otlpExporter(kind: ExporterKind, url: string, headers: Record<string, string>): SpanExporter {
  if (kind === 'json') return new JsonExporter({ url, headers });
  return new ProtoExporter({ url, headers, ...(kind === 'proto+gzip' ? { compression: 'gzip' as Compression } : {}) });
}

/** An exporter that hands every export to another, and records which spans went in each call and the result. */
export class RecordingExporter implements SpanExporter {
  /** Span names, one list per export call, in the order the calls were made. */
  readonly calls: string[][] = [];
  readonly results: ExportResult[] = [];

  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.calls.push(spans.map((span) => span.name));
    this.inner.export(spans, (result) => {
      this.results.push(result);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * A tracer provider (BasicTracerProvider unless another class is given) whose SimpleSpanProcessor
 * exports each span when it ends through `exporter`, recorded; the finished spans are also kept in
 * memory, to be exported again.
 */
export function recordedProvider(
  exporter: SpanExporter,
  resource: Record<string, string>,
  Provider: typeof BasicTracerProvider = BasicTracerProvider,
): { provider: BasicTracerProvider; recording: RecordingExporter; memory: InMemorySpanExporter } {
  const recording = new RecordingExporter(exporter);
  const memory = new InMemorySpanExporter();
  const provider = new Provider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(recording), new SimpleSpanProcessor(memory)],
  });
  return { provider, recording, memory };
}

/**
 * Calls traced by a registered NodeTracerProvider (its context manager parents the spans the libraries
 * start inside others, and carries their context attributes), each span exported as it ends to a
 * project of its own; what was exported, and the project's runs afterwards.
 */
export async function tracedCalls(
  ctx: TestContext,
  endpoint: { url: () => string; warnings: string[] },
  kind: ExporterKind,
  resource: Record<string, string>,
  calls: (provider: NodeTracerProvider) => Promise<void>,
) {
  const target = await exportTarget(ctx);
  const { provider, recording } = recordedProvider(otlpExporter(kind, endpoint.url(), target.headers), resource, NodeTracerProvider);
  (provider as NodeTracerProvider).register();
  await calls(provider as NodeTracerProvider);
  await provider.forceFlush();
  await provider.shutdown();
  expect(endpoint.warnings).toEqual([]);
  return { target, recording, runs: await target.runs() };
}

/** Exports spans in one call with a fresh exporter; the exporter's own result. */
export async function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  const result = await new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));
  await exporter.shutdown();
  return result;
}

/** Every export succeeded, in the exporter's own words. */
export function expectAllExported(recording: RecordingExporter, calls: number): void {
  expect(recording.results.map((r) => r.error?.message ?? r.code)).toEqual(Array.from({ length: calls }, () => SUCCESS));
}

/** The attributes of a span's resource and scope as a run's metadata keeps them. */
export function resourceMetadata(span: ReadableSpan): Record<string, unknown> {
  return {
    ...span.resource.attributes,
    'otel.scope.name': span.instrumentationScope.name,
    ...(span.instrumentationScope.version ? { 'otel.scope.version': span.instrumentationScope.version } : {}),
  };
}
