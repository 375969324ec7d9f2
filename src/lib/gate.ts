/**
 * A counting semaphore. Ingestion takes a slot before its body is read, so however many clients post
 * large batches at once, only `size` bodies are parsed and held in memory at a time; the rest wait
 * with their bytes still in the socket (TCP backpressure) instead of in the heap.
 */
export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves with a release function once a slot is free. Calling release twice is harmless. */
  async acquire(): Promise<() => void> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
