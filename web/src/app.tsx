import { QueryClientProvider } from '@tanstack/react-query';
import { Component, Suspense, use, useEffect, type ComponentProps, type ComponentType, type ReactElement, type ReactNode } from 'react';
import { Layout, SignIn } from './components/layout.js';
import { Empty, ErrorBox, Loading } from './components/ui.js';
import { queryClient, useDocumentTitle } from './hooks.js';
import { Link, match, navigate, useLocation } from './router.js';
import { SessionProvider } from './session.js';

/** Each page's component, by its loader: what `preloadPage` starts loading. */
const loaders = new Map<unknown, () => Promise<unknown>>();

/**
 * A page's module loads when the page is first opened: each route is a chunk of its own, the first page's
 * JavaScript stays small. Unlike `React.lazy`, a page whose module has arrived (preloaded by `preloadPage`
 * while the session was read, or opened before) renders at once: `lazy` suspends on every first render,
 * and React 19 holds a suspended boundary's content back until 300 ms after its fallback appeared, so each
 * page opened would start its requests 300 ms late.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a page takes its own props
function lazyPage<M extends Record<K, ComponentType<any>>, K extends keyof M & string>(load: () => Promise<M>, name: K): ComponentType<ComponentProps<M[K]>> {
  let loaded: M[K] | undefined;
  let loading: Promise<unknown> | undefined;
  const start = () =>
    (loading ??= load().then(
      (module) => (loaded = module[name]),
      (error: unknown) => {
        loading = undefined; // opened again, the page is loaded again
        throw error;
      },
    ));
  function Page(props: ComponentProps<M[K]>) {
    const Loaded = loaded;
    if (Loaded !== undefined) return <Loaded {...props} />;
    use(start()); // suspends until the module is there (or throws its failure to the error boundary)
    return null;
  }
  Page.displayName = name;
  loaders.set(Page, start);
  return Page;
}
const AnnotationQueuePage = lazyPage(() => import('./pages/annotation-queue.js'), 'AnnotationQueuePage');
const AnnotationQueuesPage = lazyPage(() => import('./pages/annotation-queues.js'), 'AnnotationQueuesPage');
const AnnotationReviewPage = lazyPage(() => import('./pages/annotation-review.js'), 'AnnotationReviewPage');
const DatasetPage = lazyPage(() => import('./pages/dataset.js'), 'DatasetPage');
const DatasetsPage = lazyPage(() => import('./pages/datasets.js'), 'DatasetsPage');
const ExperimentPage = lazyPage(() => import('./pages/experiment.js'), 'ExperimentPage');
const ExperimentsComparePage = lazyPage(() => import('./pages/experiments-compare.js'), 'ExperimentsComparePage');
const ModelsPage = lazyPage(() => import('./pages/models.js'), 'ModelsPage');
const MonitorPage = lazyPage(() => import('./pages/monitor.js'), 'MonitorPage');
const MonitorsPage = lazyPage(() => import('./pages/monitors.js'), 'MonitorsPage');
const EvaluatorsPage = lazyPage(() => import('./pages/evaluators.js'), 'EvaluatorsPage');
const ProjectsPage = lazyPage(() => import('./pages/projects.js'), 'ProjectsPage');
const PromptPage = lazyPage(() => import('./pages/prompt.js'), 'PromptPage');
const PromptsPage = lazyPage(() => import('./pages/prompts.js'), 'PromptsPage');
const RunPage = lazyPage(() => import('./pages/run.js'), 'RunPage');
const RunsPage = lazyPage(() => import('./pages/runs.js'), 'RunsPage');
const SessionPage = lazyPage(() => import('./pages/session.js'), 'SessionPage');
const ActivityPage = lazyPage(() => import('./pages/sessions.js'), 'ActivityPage');
const TracePage = lazyPage(() => import('./pages/trace.js'), 'TracePage');
const TracesPage = lazyPage(() => import('./pages/traces.js'), 'TracesPage');
const SettingsPage = lazyPage(() => import('./pages/settings.js'), 'SettingsPage');

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

/** Where `/` and a project's own path lead. */
function redirectOf(path: string): string | null {
  if (path === '/' || path === '') return '/projects';
  const project = match('/projects/:projectId', path);
  return project ? `/projects/${project.projectId}/traces` : null;
}

function pageOf(path: string): ReactElement | null {
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return null;
}

/**
 * Starts loading the code of the page at `path` (the document's, at start) while the session is read:
 * the page's chunk then arrives beside `GET /v1/me` instead of after it, and its requests leave sooner.
 */
export function preloadPage(path: string): void {
  const page = pageOf(redirectOf(path) ?? path);
  void loaders
    .get(page?.type)?.()
    .catch(() => undefined); // opening the page loads it again, and shows the failure there
}

function Routes() {
  const { path } = useLocation();
  const to = redirectOf(path);
  if (to) return <Redirect to={to} />;
  // A new path starts with a new boundary: a page that failed is tried again when opened again.
  return (
    <PageBoundary key={path}>
      <Suspense fallback={<Loading label="Loading the page…" />}>{pageOf(path) ?? <NotFound />}</Suspense>
    </PageBoundary>
  );
}

/**
 * What a page that failed to render shows (its module not loaded after a new version was deployed, or a
 * fault in the page): the failure and a retry, in place of a blank dashboard.
 */
class PageBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    if (this.state.error === null) return this.props.children;
    return <ErrorBox error={this.state.error} onRetry={() => window.location.reload()} />;
  }
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
    <QueryClientProvider client={queryClient}>
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
    </QueryClientProvider>
  );
}
