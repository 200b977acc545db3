/** Runs `work` over `items`, at most `concurrency` at once, in order of the items. */
export async function runPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * A concurrency limit for work that arrives over time (runPool needs the whole list first): at most `concurrency`
 * calls of the returned function run at once, the others wait their turn in the order they were made.
 */
export function limiter(concurrency: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/**
 * Holds back a producer that runs ahead of its consumer: `enter` waits while `maxFiles` items or `maxBytes` bytes are
 * in between (one item is always let in, however large, so a file over the limit cannot block the run).
 */
export class Lookahead {
  private files = 0;
  private bytes = 0;
  private waiting: (() => void)[] = [];

  constructor(
    private readonly maxFiles: number,
    private readonly maxBytes: number,
  ) {}

  async enter(bytes: number): Promise<void> {
    while (this.files > 0 && (this.files >= this.maxFiles || this.bytes + bytes > this.maxBytes)) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.files += 1;
    this.bytes += bytes;
  }

  leave(bytes: number): void {
    this.files -= 1;
    this.bytes -= bytes;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
