/**
 * A counting semaphore with a FIFO queue. Campaigns running together take turns in arrival order, so
 * they share the send capacity fairly.
 */
export class Semaphore {
  private available: number;
  private readonly waiters: Array<() => void> = [];

  /** @param capacity concurrent holders allowed (at least 1) */
  constructor(private capacity: number) {
    this.available = Math.max(1, capacity);
  }

  /** Waits for a slot. */
  acquire(): Promise<void> {
    if (this.available > 0) {
      this.available -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Returns a slot, waking the longest waiter. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.available += 1;
  }

  /** Changes the capacity (settings changed); takes effect as slots are released. */
  resize(capacity: number): void {
    const delta = Math.max(1, capacity) - this.capacity;
    this.capacity = Math.max(1, capacity);
    this.available += delta;
    while (this.available > 0 && this.waiters.length > 0) {
      this.available -= 1;
      this.waiters.shift()?.();
    }
  }
}
