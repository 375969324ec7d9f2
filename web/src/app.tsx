import { useEffect, type ReactElement } from 'react';
import { AnnotationQueuePage } from './pages/annotation-queue.js';
import { AnnotationQueuesPage } from './pages/annotation-queues.js';
import { AnnotationReviewPage } from './pages/annotation-review.js';
import { Layout, SignIn } from './components/layout.js';
import { Empty, ErrorBox, Loading } from './components/ui.js';
import { useDocumentTitle } from './hooks.js';
import { DatasetPage } from './pages/dataset.js';
import { DatasetsPage } from './pages/datasets.js';
import { ExperimentPage } from './pages/experiment.js';
import { ExperimentsComparePage } from './pages/experiments-compare.js';
import { ModelsPage } from './pages/models.js';
import { MonitorPage } from './pages/monitor.js';
import { MonitorsPage } from './pages/monitors.js';
import { EvaluatorsPage } from './pages/evaluators.js';
import { ProjectsPage } from './pages/projects.js';
import { PromptPage } from './pages/prompt.js';
import { PromptsPage } from './pages/prompts.js';
import { RunPage } from './pages/run.js';
import { RunsPage } from './pages/runs.js';
import { SessionPage } from './pages/session.js';
import { ActivityPage } from './pages/sessions.js';
import { TracePage } from './pages/trace.js';
import { TracesPage } from './pages/traces.js';
import { SettingsPage } from './pages/settings.js';
import { Link, match, navigate, useLocation } from './router.js';
import { SessionProvider } from './session.js';

type Params = Record<string, string>;
const ROUTES: [string, (params: Params) => ReactElement][] = [
  ['/projects', () => <ProjectsPage />],
  ['/projects/:projectId/traces', (p) => <TracesPage projectId={p.projectId!} />],
  ['/projects/:projectId/traces/:traceId', (p) => <TracePage projectId={p.projectId!} traceId={p.traceId!} />],
  ['/projects/:projectId/sessions', (p) => <ActivityPage projectId={p.projectId!} kind="sessions" />],
  ['/projects/:projectId/sessions/:sessionId', (p) => <SessionPage projectId={p.projectId!} id={p.sessionId!} kind="sessions" />],
  ['/projects/:projectId/users', (p) => <ActivityPage projectId={p.projectId!} kind="users" />],
  ['/projects/:projectId/users/:userId', (p) => <SessionPage projectId={p.projectId!} id={p.userId!} kind="users" />],
  ['/projects/:projectId/runs', (p) => <RunsPage projectId={p.projectId!} />],
  ['/projects/:projectId/runs/:runId', (p) => <RunPage projectId={p.projectId!} runId={p.runId!} />],
  ['/projects/:projectId/monitors', (p) => <MonitorsPage projectId={p.projectId!} />],
  ['/projects/:projectId/monitors/:monitorId', (p) => <MonitorPage projectId={p.projectId!} monitorId={p.monitorId!} />],
  ['/projects/:projectId/annotation-queues', (p) => <AnnotationQueuesPage projectId={p.projectId!} />],
  ['/projects/:projectId/annotation-queues/:queueId', (p) => <AnnotationQueuePage projectId={p.projectId!} queueId={p.queueId!} />],
  ['/projects/:projectId/annotation-queues/:queueId/review', (p) => <AnnotationReviewPage projectId={p.projectId!} queueId={p.queueId!} />],
  ['/projects/:projectId/evaluators', (p) => <EvaluatorsPage projectId={p.projectId!} />],
  ['/prompts', () => <PromptsPage />],
  ['/prompts/:promptId', (p) => <PromptPage promptId={p.promptId!} />],
  ['/datasets', () => <DatasetsPage />],
  ['/datasets/:datasetId', (p) => <DatasetPage datasetId={p.datasetId!} />],
  ['/experiments/compare', () => <ExperimentsComparePage />],
  ['/experiments/:experimentId', (p) => <ExperimentPage experimentId={p.experimentId!} />],
  ['/models', () => <ModelsPage />],
  ['/settings', () => <SettingsPage />],
];

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function Routes() {
  const { path } = useLocation();
  if (path === '/' || path === '') return <Redirect to="/projects" />;
  const project = match('/projects/:projectId', path);
  if (project) return <Redirect to={`/projects/${project.projectId}/traces`} />;
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return <NotFound />;
}

function NotFound() {
  useDocumentTitle('Page not found');
  return (
    <Empty title="Page not found">
      <Link to="/projects">Go to projects</Link>
    </Empty>
  );
}

export function App() {
  return (
    <SessionProvider
      loading={<Loading label="Signing in…" />}
      signedOut={(reason) => <SignIn reason={reason} />}
      failed={(error, retry) => (
        <div className="signin">
          <ErrorBox error={error} onRetry={retry} />
        </div>
      )}
    >
      <Layout>
        <Routes />
      </Layout>
    </SessionProvider>
  );
}
