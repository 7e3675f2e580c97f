import * as vscode from 'vscode';
import type { CommandId } from '../core/ids';
import { Disposable } from '../core/util/lifecycle';
import type { IDisposable } from '../core/util/lifecycle';
import type { Logger } from './log/logger';

/** A command handler as VS Code calls it. */
export type CommandHandler = (...args: unknown[]) => unknown;

/** A feature that handles some of the contributed commands. */
export interface CommandFeature<C extends CommandId> extends IDisposable {
  readonly commands: Readonly<Record<C, CommandHandler>>;
}

/**
 * A feature whose code is a bundle of its own (see the split points in esbuild.mjs), created the
 * first time a view, a command or an event needs it. Activation registers only what VS Code must
 * know about up front (commands, view providers); their handlers call `get()`.
 */
export class LazyFeature<T extends IDisposable> extends Disposable {
  private instance: T | undefined;

  constructor(
    private readonly name: string,
    private readonly create: () => T,
    private readonly logger: Logger,
  ) {
    super();
  }

  /** The feature, loading its bundle and constructing it on the first call. */
  get(): T {
    if (this.instance) return this.instance;
    if (this.isDisposed) throw new Error(`The ${this.name} feature was used after the extension shut down.`);
    const start = performance.now();
    this.instance = this.register(this.create());
    this.logger.debug(`Loaded the ${this.name} feature in ${(performance.now() - start).toFixed(1)} ms`);
    return this.instance;
  }

  /** The feature if something has needed it already; never loads it. */
  get loaded(): T | undefined {
    return this.instance;
  }

  /** Keeps a registration made for the feature until the extension shuts down. */
  track<D extends IDisposable>(registration: D): D {
    return this.register(registration);
  }

  /** Registers commands now; the feature loads when one of them first runs. */
  registerCommands<C extends CommandId>(this: LazyFeature<T & CommandFeature<C>>, ids: readonly C[]): void {
    for (const id of ids)
      this.register(
        vscode.commands.registerCommand(id, (...args: unknown[]) => this.get().commands[id](...args)),
      );
  }
}
