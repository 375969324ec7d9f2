import type { SightlineProblem } from './errors.js';

/** Where the client gets its bearer token when it is not a fixed string. */
export interface TokenProvider {
  /** The token to send now (read from your secret store; may be cached by you). */
  getToken(): string | Promise<string>;
  /**
   * Called once when a request's token was answered 401 (for example `problem.reason` is
   * `token_expired` or `token_revoked`): mint a new token, store it where `getToken` finds it, and
   * return it (or return nothing and `getToken` is asked again). The request is retried once with it;
   * a second 401 surfaces as a SightlineProblem. Throw to give up at once. Concurrent requests that
   * fail together share one call.
   */
  onUnauthorized(problem: SightlineProblem): string | void | Promise<string | void>;
}

/** The token, from a fixed string or a provider; a 401 asks the provider once for a new one. */
export class Credentials {
  private refreshing: Promise<string | null> | null = null;

  constructor(
    private token: string | undefined,
    private readonly provider: TokenProvider | undefined,
  ) {}

  get fromProvider(): boolean {
    return this.provider !== undefined;
  }

  get refreshable(): boolean {
    return this.provider !== undefined;
  }

  async current(): Promise<string> {
    if (this.token !== undefined) return this.token;
    const token = await this.provider!.getToken();
    if (typeof token !== 'string' || token.length === 0) throw new TypeError('tokenProvider.getToken() returned no token');
    return token;
  }

  set(token: string): void {
    if (this.provider) throw new TypeError('This client gets its token from a tokenProvider: store the new token where getToken() finds it.');
    this.token = token;
  }

  /** A token to retry with after `failed` got a 401, or null. One provider call for concurrent failures. */
  async refresh(failed: string, problem: SightlineProblem): Promise<string | null> {
    if (!this.provider) return null;
    if (this.refreshing) return this.refreshing;
    const now = await this.current();
    if (now !== failed) return now; // another request already renewed it
    if (this.refreshing) return this.refreshing;
    const provider = this.provider;
    this.refreshing = (async () => {
      const fresh = await provider.onUnauthorized(problem);
      return typeof fresh === 'string' && fresh.length > 0 ? fresh : await this.current();
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }
}
