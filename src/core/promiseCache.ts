/**
 * One promise made on first use and shared by every caller until {@link clear}; a rejected one is dropped, so the
 * next {@link get} tries again. A promise that settles after a `clear` is not kept (it answered an older question).
 */
export class PromiseCache<T> {
  private promise: Promise<T> | undefined;
  private settled: { value: T } | undefined;

  get(make: () => Promise<T>): Promise<T> {
    if (!this.promise) {
      const p = make();
      this.promise = p;
      p.then(
        (value) => {
          if (this.promise === p) this.settled = { value };
        },
        () => {
          if (this.promise === p) this.promise = undefined;
        },
      );
    }
    return this.promise;
  }

  /** The value once the promise has resolved (synchronous); undefined before. */
  get value(): T | undefined {
    return this.settled?.value;
  }

  /** True while a promise is pending or kept. */
  get started(): boolean {
    return this.promise !== undefined;
  }

  clear(): void {
    this.promise = undefined;
    this.settled = undefined;
  }
}
