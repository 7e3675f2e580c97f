/** Something that holds resources and releases them with `dispose()`. */
export interface IDisposable {
  dispose(): void;
}

/** A base for classes that own disposables: register them once, release them all together. */
export abstract class Disposable implements IDisposable {
  private readonly disposables: IDisposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  protected register<T extends IDisposable>(value: T): T {
    if (this.disposed) value.dispose();
    else this.disposables.push(value);
    return value;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // One failing disposable must not keep the others alive.
      }
    }
  }
}
