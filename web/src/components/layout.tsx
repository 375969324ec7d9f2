import { useEffect, useState, type ReactNode } from 'react';
import { Shortcuts } from './shortcuts.js';
import { auth } from '../api.js';
import { useDocumentTitle } from '../hooks.js';
import type { SignInStatus } from '../types.js';
import { Link, useLocation } from '../router.js';
import { useSession } from '../session.js';
import { chooseTheme, storedTheme, type ThemeChoice } from '../theme.js';
import { Empty, ErrorBox, PageHeader } from './ui.js';
import type { Project } from '../types.js';

const NAV = [
  { to: '/projects', label: 'Projects' },
  { to: '/prompts', label: 'Prompts' },
  { to: '/datasets', label: 'Datasets' },
  { to: '/models', label: 'Models' },
  { to: '/settings', label: 'Settings' },
];

export function Layout({ children }: { children: ReactNode }) {
  const { me } = useSession();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [theme, setTheme] = useState<ThemeChoice>(storedTheme);
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/projects" className="brand">
          Sightline
        </Link>
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="nav" className={menuOpen ? 'open' : ''} aria-label="Main">
          {NAV.map((item) => (
            <Link key={item.to} to={item.to} aria-current={path.startsWith(item.to) ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
              {item.label}
            </Link>
          ))}
        </nav>
        <div className="whoami">
          <span title={me.user.email}>
            {me.organization.name} · <span className="muted">{me.role}</span>
          </span>
          <select
            aria-label="Theme"
            value={theme}
            onChange={(event) => {
              const choice = event.target.value as ThemeChoice;
              chooseTheme(choice);
              setTheme(choice);
            }}
          >
            <option value="system">System theme</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
          <button
            type="button"
            className="button ghost"
            onClick={() => {
              void auth.signOut().finally(() => window.location.assign('/'));
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <Shortcuts />
    </div>
  );
}

/** Shown when there is no session: sign-in goes through the identity provider (or says what to configure). */
export function SignIn({ reason }: { reason?: string | undefined }) {
  const [status, setStatus] = useState<SignInStatus | null>(null);
  useDocumentTitle('Sign in');
  useEffect(() => {
    void auth.status().then(setStatus);
  }, []);
  return (
    <div className="signin">
      <div className="signin-card">
        <h1>Sightline</h1>
        <p className="muted">Traces, prompts and monitors for your LLM applications.</p>
        {reason && <p role="alert">{reason}</p>}
        {status && !status.available ? (
          <div className="error-box" role="alert">
            <strong>Sign-in is not configured</strong>
            <p>{status.message}</p>
          </div>
        ) : (
          <>
            <a className="button primary" href="/auth/login">
              Sign in
            </a>
            {status?.development && <p className="muted">{status.message}</p>}
          </>
        )}
      </div>
    </div>
  );
}

/** A project page's answer to a 404 on its project. */
export function ProjectNotFound() {
  return (
    <Empty title="Project not found">
      It may have been deleted, or belong to another organization. <Link to="/projects">See all projects</Link>
    </Empty>
  );
}

type ProjectTab = 'traces' | 'runs' | 'sessions' | 'users' | 'monitors' | 'annotation-queues' | 'evaluators';

/** The head of a project's tab: the project's name, `subtitle`, `actions`, the tabs, and the project's load error (with Retry). */
export function ProjectHeader({
  project,
  projectId,
  active,
  subtitle,
  actions,
}: {
  project: { data?: Project; loading: boolean; error?: unknown; reload: () => void };
  projectId: string;
  active: ProjectTab;
  subtitle: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <>
      <PageHeader title={project.data?.name ?? (project.loading ? 'Loading…' : 'Project')} subtitle={subtitle} actions={actions} />
      <ProjectTabs projectId={projectId} active={active} />
      {project.error !== undefined && <ErrorBox error={project.error} onRetry={project.reload} />}
    </>
  );
}

/** Tabs of a project: its traces, runs, sessions, users, monitors, annotation queues and evaluators. */
export function ProjectTabs({ projectId, active }: { projectId: string; active: ProjectTab }) {
  const tabs = [
    ['traces', 'Traces'],
    ['runs', 'Runs'],
    ['sessions', 'Sessions'],
    ['users', 'Users'],
    ['monitors', 'Monitors'],
    ['annotation-queues', 'Annotation queues'],
    ['evaluators', 'Evaluators'],
  ] as const;
  return (
    <nav className="tabs" aria-label="Project">
      {tabs.map(([tab, label]) => (
        <Link key={tab} to={`/projects/${projectId}/${tab}`} aria-current={active === tab ? 'page' : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
