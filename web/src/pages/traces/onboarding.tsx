import { useEffect, useRef, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { runs, tokens } from '../../api.js';
import { Button, CopyButton, ErrorBox } from '../../components/ui.js';
import { useAsync, useSubmit } from '../../hooks.js';

/** How often an empty project asks whether its first run has arrived. */
const WATCH_MS = 3000;

type Snippet = { id: string; label: string; note: string; code: string };

/** The ways to send a first trace, each a whole program with this server, project and token filled in. */
export function snippetsOf(origin: string, projectId: string, token: string): Snippet[] {
  return [
    {
      id: 'sdk',
      label: 'TypeScript SDK',
      note: 'npm install @sightline/client (built from packages/client: npm run build:client), then npx tsx first-trace.ts',
      code: `import { Sightline } from '@sightline/client';

const client = new Sightline({ baseUrl: '${origin}', token: '${token}' });
const tracer = client.tracer('${projectId}');

const answer = await tracer.trace('first-trace', (run) => {
  run.setModel('gpt-4o', 'openai');
  return { answer: 'Hello from Sightline' };
}, { kind: 'llm', inputs: { question: 'Hello?' } });
console.log(answer);
await tracer.shutdown(); // sends what is queued
`,
    },
    {
      id: 'otel-python',
      label: 'OpenTelemetry (Python)',
      note: 'pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http, then python first_trace.py',
      code: `from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

exporter = OTLPSpanExporter(
    endpoint="${origin}/v1/traces",
    headers={"Authorization": "Bearer ${token}", "Sightline-Project": "${projectId}"},
)
provider = TracerProvider(resource=Resource.create({"service.name": "first-trace"}))
provider.add_span_processor(BatchSpanProcessor(exporter))
trace.set_tracer_provider(provider)

with trace.get_tracer("first-trace").start_as_current_span("first-trace") as span:
    span.set_attribute("input.value", "Hello?")
    span.set_attribute("output.value", "Hello from Sightline")
provider.shutdown()  # flushes
`,
    },
    {
      id: 'otel-js',
      label: 'OpenTelemetry (JavaScript)',
      note: 'npm install @opentelemetry/api @opentelemetry/sdk-trace-node @opentelemetry/exporter-trace-otlp-proto, then node first-trace.mjs',
      code: `import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

const exporter = new OTLPTraceExporter({
  url: '${origin}/v1/traces',
  headers: { Authorization: 'Bearer ${token}', 'Sightline-Project': '${projectId}' },
});
const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
provider.register();

trace.getTracer('first-trace').startActiveSpan('first-trace', (span) => {
  span.setAttribute('input.value', 'Hello?');
  span.setAttribute('output.value', 'Hello from Sightline');
  span.end();
});
await provider.shutdown(); // flushes
`,
    },
    {
      id: 'curl',
      label: 'curl',
      note: 'One run through the REST API (a shell with curl)',
      code: `curl -s ${origin}/v1/projects/${projectId}/runs \\
  -H 'Authorization: Bearer ${token}' -H 'content-type: application/json' \\
  -d "{\\"name\\": \\"first-trace\\", \\"kind\\": \\"llm\\", \\"status\\": \\"succeeded\\",
       \\"startTime\\": \\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\\", \\"endTime\\": \\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\\",
       \\"inputs\\": {\\"question\\": \\"Hello?\\"}, \\"outputs\\": {\\"answer\\": \\"Hello from Sightline\\"}}"
`,
    },
  ];
}

/** A tab per way in (React Aria's tabs: arrow keys, Home and End move between them, the panel follows). */
function SnippetTabs({ snippets }: { snippets: Snippet[] }) {
  return (
    <Tabs className="sl-snippets">
      <TabList aria-label="Ways to send a trace" className="sl-tabs">
        {snippets.map((snippet) => (
          <Tab key={snippet.id} id={snippet.id}>
            {snippet.label}
          </Tab>
        ))}
      </TabList>
      {snippets.map((snippet) => (
        <TabPanel key={snippet.id} id={snippet.id}>
          <p className="muted">{snippet.note}</p>
          <div className="sl-snippet">
            <CopyButton text={snippet.code} label={`Copy the ${snippet.label} snippet`} />
            <pre className="sl-code" tabIndex={0} aria-label={`${snippet.label} snippet`}>
              <code>{snippet.code}</code>
            </pre>
          </div>
        </TabPanel>
      ))}
    </Tabs>
  );
}

/**
 * A project with no run yet: its id, a button that mints a token to send with (shown once), and a whole
 * program per way in with both filled in. It watches for the first run and calls `onFirstRun` when it
 * arrives, so the page turns into the traces list by itself.
 */
export function Onboarding({ projectId, projectName, onFirstRun }: { projectId: string; projectName: string; onFirstRun: () => void }) {
  const [token, setToken] = useState<string | null>(null);
  const mint = useSubmit(async () => {
    // Ingest-only, and for this project only: what a leaked copy could do is send runs here, nothing more.
    const created = await tokens.create({ name: `${projectName} ingest`, expiresInDays: 90, scopes: ['runs:write'], projectIds: [projectId] });
    setToken(created.token);
  });
  const arrived = useRef(onFirstRun);
  arrived.current = onFirstRun;
  useEffect(() => {
    let stopped = false;
    const timer = setInterval(async () => {
      try {
        const page = await runs.list(projectId).page({ limit: '1' });
        if (!stopped && page.items.length > 0) arrived.current();
      } catch {
        // asked again at the next tick
      }
    }, WATCH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [projectId]);
  const origin = window.location.origin;
  return (
    <section className="panel sl-onboarding" aria-labelledby="onboarding-title">
      <h2 id="onboarding-title">Send the first trace to {projectName}</h2>
      <p>
        Project id <code>{projectId}</code> <CopyButton text={projectId} label="Copy the project id" />
      </p>
      {token ? (
        <p>
          Your new token (shown once, valid 90 days; revoke it in Settings): <code className="sl-secret">{token}</code>{' '}
          <CopyButton text={token} label="Copy the token" />
        </p>
      ) : (
        <form onSubmit={mint.submit}>
          <Button type="submit" disabled={mint.busy}>
            Create a token to send with
          </Button>{' '}
          <span className="muted">
            a personal access token named “{projectName} ingest” that may only send runs to this project; the snippets below fill it in.
          </span>
        </form>
      )}
      {mint.error !== null && <ErrorBox error={mint.error} />}
      <SnippetTabs snippets={snippetsOf(origin, projectId, token ?? '$SIGHTLINE_TOKEN')} />
      <p className="muted" role="status">
        Waiting for the first run… this page shows it as soon as it arrives.
      </p>
    </section>
  );
}

/** Whether a project has any run at all (not only in the window shown). */
export function useHasRuns(projectId: string, when: boolean) {
  return useAsync(
    () =>
      when
        ? runs
            .list(projectId)
            .page({ limit: '1' })
            .then((page) => page.items.length > 0)
        : Promise.resolve(true),
    `has-runs:${projectId}:${when}`,
  );
}
