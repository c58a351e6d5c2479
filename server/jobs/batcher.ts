/**
 * Gathers items and hands them over in batches: when `maxItems` are waiting, or `maxWaitMs` after
 * the first of a batch arrived. Each `add` settles when its batch has been handled.
 */
export class Batcher<T> {
  private waiting: { item: T; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly handle: (items: T[]) => Promise<void>,
    private readonly maxItems: number,
    private readonly maxWaitMs: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length >= this.maxItems) this.flush();
      else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.maxWaitMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.handle(batch.map((b) => b.item)).then(
      () => batch.forEach((b) => b.resolve()),
      (e: unknown) => batch.forEach((b) => b.reject(e)),
    );
  }
}
