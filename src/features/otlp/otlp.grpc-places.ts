/** OTLP/gRPC calls in progress at once (docs/otlp.md, OTLP over gRPC; config `otlpGrpcCalls`): on the instance, on one connection, with one credential. */
export interface GrpcCallLimits {
  total: number;
  perConnection: number;
  perCredential: number;
}

/**
 * The places of calls in progress. A call takes one only once its credential is verified, so clients
 * without one never hold any; one connection, or one credential over many connections, holds at most its
 * share, so the rest stay open to other exporters. A place is held until the call's request has ended
 * (its message read and its spans stored, or refused), and given back exactly once.
 */
export class CallPlaces {
  private total = 0;
  private readonly connections = new Map<object, number>();
  private readonly credentials = new Map<string, number>();

  constructor(readonly limits: GrpcCallLimits) {}

  /** Calls in progress on the instance. */
  get inProgress(): number {
    return this.total;
  }

  /** A place for a call on `connection` with `credential`: its release, or the limit that is reached. */
  take(connection: object, credential: string): { release: () => void } | { full: 'instance' | 'connection' | 'credential' } {
    const onConnection = this.connections.get(connection) ?? 0;
    const withCredential = this.credentials.get(credential) ?? 0;
    if (this.total >= this.limits.total) return { full: 'instance' };
    if (onConnection >= this.limits.perConnection) return { full: 'connection' };
    if (withCredential >= this.limits.perCredential) return { full: 'credential' };
    this.total++;
    this.connections.set(connection, onConnection + 1);
    this.credentials.set(credential, withCredential + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.total--;
        decrement(this.connections, connection);
        decrement(this.credentials, credential);
      },
    };
  }
}

function decrement<K>(counts: Map<K, number>, key: K): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}
