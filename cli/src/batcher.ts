/**
 * Gathers items that become ready one by one into batches: a batch goes when it has `size` items or `waitMs` after its
 * first item, whichever comes first. Batches are handled one at a time, in order. After a handler fails, the later
 * batches go to `skip` instead (so that their items are still accounted for) and `close` rethrows the failure.
 */
export class Batcher<T> {
  private items: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly size: number,
    private readonly waitMs: number,
    private readonly handle: (batch: T[]) => Promise<void>,
    private readonly hooks: { onError(error: unknown): void; skip(batch: T[]): void },
  ) {}

  add(item: T): void {
    this.items.push(item);
    if (this.items.length >= this.size) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.waitMs);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.items.length === 0) return;
    const batch = this.items;
    this.items = [];
    this.chain = this.chain.then(async () => {
      if (this.failure) return this.hooks.skip(batch);
      try {
        await this.handle(batch);
      } catch (error) {
        this.failure = { error };
        this.hooks.skip(batch);
        this.hooks.onError(error);
      }
    });
  }

  /** Sends what is left and waits until every batch is handled; throws the first handler failure. */
  async close(): Promise<void> {
    this.flush();
    await this.chain;
    if (this.failure) throw this.failure.error;
  }
}
