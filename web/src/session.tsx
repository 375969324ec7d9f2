import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { can as roleCan, type Scope } from '../../src/auth/roles.js';
import { ApiError, auth, setUnauthorizedHandler } from './api.js';
import type { Me } from './types.js';

interface Session {
  me: Me;
  /** Whether the signed-in role may do this: the server's own permission table (the server still decides). */
  can(scope: Scope): boolean;
  reload(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

type State = { status: 'loading' } | { status: 'signed-out'; reason?: string } | { status: 'error'; error: unknown } | { status: 'ready'; me: Me };

/** Loads who is signed in (GET /v1/me); without a session, `signedOut` is shown instead of the app. */
export function SessionProvider({
  children,
  signedOut,
  loading,
  failed,
}: {
  children: ReactNode;
  signedOut: (reason?: string) => ReactNode;
  loading: ReactNode;
  failed: (error: unknown, retry: () => void) => ReactNode;
}) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const load = useCallback(async () => {
    try {
      setState({ status: 'ready', me: await auth.me() });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) setState({ status: 'signed-out' });
      else setState({ status: 'error', error });
    }
  }, []);
  useEffect(() => {
    setUnauthorizedHandler(() => setState({ status: 'signed-out', reason: 'Your session has ended. Sign in again.' }));
    void load();
  }, [load]);
  if (state.status === 'loading') return <>{loading}</>;
  if (state.status === 'signed-out') return <>{signedOut(state.reason)}</>;
  if (state.status === 'error') return <>{failed(state.error, () => void load())}</>;
  const me = state.me;
  return <SessionContext.Provider value={{ me, can: (scope) => roleCan(me.role, scope), reload: load }}>{children}</SessionContext.Provider>;
}
