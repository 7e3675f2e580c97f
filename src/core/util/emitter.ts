/** A minimal event emitter, so the media-jobs core needs neither `vscode` nor Node's `events`. */

export interface IDisposable {
  dispose(): void;
}

export type Listener<T> = (event: T) => void;

/** Subscribes a listener; the returned handle unsubscribes it. Shaped like `vscode.Event`. */
export type Event<T> = (listener: Listener<T>) => IDisposable;

export class Emitter<T> {
  private listeners: Listener<T>[] = [];

  readonly event: Event<T> = (listener) => {
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };

  /**
   * Calls every listener, even when one throws: a broken view must not keep the store from
   * persisting. The first error is rethrown afterwards so it is not silently lost.
   */
  fire(event: T): void {
    let firstError: { error: unknown } | undefined;
    // A copy, so listeners may unsubscribe (or subscribe others) while being called.
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        firstError ??= { error };
      }
    }
    if (firstError) throw firstError.error;
  }

  dispose(): void {
    this.listeners = [];
  }
}
