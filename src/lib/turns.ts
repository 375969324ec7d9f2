import { setImmediate } from 'node:timers/promises';

/** Synchronous work between turns given back to the event loop, while a large request is read or stored. */
export const TURN_MS = 20;

/**
 * Gives the event loop a turn once the current one has run TURN_MS (other requests, health checks):
 * long work calls `breathe` often, and it costs nothing until the time is up.
 */
export class Turns {
  private started = performance.now();

  async breathe(): Promise<void> {
    if (performance.now() - this.started < TURN_MS) return;
    await setImmediate();
    this.started = performance.now();
  }
}
