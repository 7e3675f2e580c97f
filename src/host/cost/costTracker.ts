import * as vscode from 'vscode';
import type { Generation } from '../../api/types';
import { CostLedger, dayKey, readLedgerFile, sumDay } from '../../core/cost/costLedger';
import type { CostSource, DayCosts } from '../../core/cost/costLedger';
import { GenerationLookup } from '../../core/cost/generationLookup';
import { SpendHolds } from '../../core/cost/spendHolds';
import { asideOverflow, describeError, isAsideName, keepAside } from '../../core/storage/storeFiles';
import { Disposable } from '../../core/util/lifecycle';
import type { Settings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import type { StorageFolder } from '../storage/storageFolder';

export interface TodayCosts {
  /** `YYYY-MM-DD`, local time. */
  day: string;
  /** Every figure, estimated ones included (what the daily cap counts). */
  total: number;
  bySource: DayCosts;
  /** USD of `total` estimated from tokens × price, where the gateway reported no cost. */
  estimated: number;
}

const FILE_PREFIX = 'window-';
const POLL_MS = 3000;
/** Unreadable ledger files kept aside, newest first; older ones are deleted. */
const KEEP_ASIDE = 5;

/**
 * What the gateway cost today, across every window and every feature. Each window records into a
 * ledger file of its own (`window-<id>.json`, written atomically and in order; a failed write is
 * logged and the next cost writes the whole ledger again), so no window ever overwrites another's
 * figures; today's total is the sum over all the files, read again when another window writes. An
 * unreadable file is kept aside (the newest few of them) and left out; a file of a newer version
 * (a window already updated) is left alone and out; a file whose days are all past is deleted.
 * Nothing is read or written until the first cost or the first look at the total.
 *
 * Also finds the cost of replies whose stream carried none (`/v1/generation`).
 */
export class CostTracker extends Disposable {
  private readonly own = new CostLedger();
  private readonly ownFile = `${FILE_PREFIX}${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}.json`;
  private others = new Map<string, CostLedger>();
  private loading: Promise<void> | undefined;
  private watching = false;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> = Promise.resolve();
  private stamp: string | undefined;
  /** Newer-version files already logged, so each is said once. */
  private readonly newerLogged = new Set<string>();
  /** Counts reloads, so one that started earlier never replaces what a later one read. */
  private reloads = 0;
  private readonly lookup: GenerationLookup;
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when today's figures change (a cost here, or another window's file). */
  readonly onDidChange = this.changed.event;
  /**
   * Estimates held for paid agent calls (media jobs) until their cost is known, and kept for
   * those whose cost never came: this window's, in memory. The spend caps count them; today's
   * shown figures do not (they are not costs yet).
   */
  readonly holds = new SpendHolds();

  constructor(
    private readonly folder: StorageFolder,
    private readonly gateway: GatewayService,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {
    super();
    this.register({ dispose: () => clearTimeout(this.reloadTimer) });
    this.lookup = new GenerationLookup(
      {
        random: Math.random,
        sleep: (ms, signal) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, ms);
            signal?.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(new Error('aborted'));
            });
          }),
      },
      (message) => logger.info(message),
    );
  }

  /**
   * Adds a cost (USD) to today's figures for `source`. The one entry point for every feature: the
   * chat panel, VS Code's chat, completions and media jobs. Figures that are not costs are ignored.
   * `estimated`: tokens × the catalog's price, for a reply whose gateway reported no cost.
   */
  record(source: CostSource, cost: number | undefined, options?: { estimated?: boolean }): void {
    if (cost === undefined || !this.own.record(source, cost, Date.now(), options?.estimated === true)) return;
    this.own.prune(Date.now());
    this.saving = this.saving
      .then(() => this.folder.write(this.ownFile, this.own.encode()))
      .catch((error: unknown) => this.logger.warn(`Saving today's cost failed: ${describeError(error)}`));
    void this.load();
    this.changed.fire();
  }

  /** Today's figures as known now (call `load` first for other windows' share). */
  today(): TodayCosts {
    const day = dayKey(Date.now());
    return { day, ...sumDay([this.own, ...this.others.values()], day) };
  }

  /** Today's spending as the agent's daily cap judges it: every window's costs, and what is held. */
  spentForCaps(): number {
    const { day, total } = this.today();
    return total + this.holds.total(day);
  }

  /** Reads other windows' files once, and follows them from then on. */
  load(): Promise<void> {
    if (this.isDisposed) return Promise.resolve();
    if (!this.watching) {
      this.watching = true;
      // Other windows write their own files here: read them again (once per burst of events).
      const watcher = this.register(
        vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.folder.uri, '*.json')),
      );
      const changed = (uri: vscode.Uri): void => {
        if (uri.path.endsWith(this.ownFile)) return;
        clearTimeout(this.reloadTimer);
        this.reloadTimer = setTimeout(() => void this.reload(), 200);
      };
      this.register(watcher.onDidChange(changed));
      this.register(watcher.onDidCreate(changed));
      this.register(watcher.onDidDelete(changed));
      // Watchers stay silent outside the workspace on some hosts: a light look at the files' stamps.
      const poll = setInterval(() => void this.pollStamps(), POLL_MS);
      this.register({ dispose: () => clearInterval(poll) });
    }
    this.loading ??= this.reload();
    return this.loading;
  }

  /** Waits for pending writes (tests, and before reading the files back). */
  whenSaved(): Promise<void> {
    return this.saving;
  }

  /** The record of a reply whose stream carried no cost; undefined when the gateway has none. */
  generation(id: string, signal?: AbortSignal): Promise<Generation | undefined> {
    const baseUrl = this.settings.current.baseUrl;
    return this.lookup
      .lookup(
        baseUrl,
        id,
        (generationId, s) => this.gateway.client().getGeneration(generationId, { signal: s }),
        signal,
      )
      .catch(() => undefined);
  }

  /** Reads the files again when one of them changed since the last look (name, time, size). */
  private async pollStamps(): Promise<void> {
    try {
      const entries = await vscode.workspace.fs.readDirectory(this.folder.uri);
      const names = entries
        .map(([name]) => name)
        .filter((name) => name !== this.ownFile && name.startsWith(FILE_PREFIX) && !isAsideName(name));
      const stamps = await Promise.all(
        names.map(async (name) => {
          const stat = await vscode.workspace.fs.stat(this.folder.fileUri(name));
          return `${name}:${stat.mtime}:${stat.size}`;
        }),
      );
      const stamp = stamps.sort().join('|');
      // The first look reads too: a file written between the first load and it would be missed.
      if (stamp !== this.stamp) void this.reload();
      this.stamp = stamp;
    } catch {
      // No folder yet, or a file went away while we looked: the next look will tell.
    }
  }

  private async reload(): Promise<void> {
    const ticket = ++this.reloads;
    const others = new Map<string, CostLedger>();
    let names: string[];
    try {
      names = await this.folder.list();
    } catch (error) {
      this.logger.warn(`Today's cost from other windows could not be read: ${describeError(error)}`);
      return;
    }
    let keptAside = false;
    for (const name of names) {
      if (name === this.ownFile || !name.startsWith(FILE_PREFIX) || !name.endsWith('.json')) continue;
      if (isAsideName(name)) continue;
      const file = await this.readLedger(name);
      if (file?.kind === 'current') others.set(name, file.ledger);
      // A window long closed: its file is of no more use to anyone.
      else if (file?.kind === 'stale') await this.folder.delete(name).catch(() => undefined);
      else if (file?.kind === 'unreadable') keptAside = true;
    }
    if (keptAside) await this.dropOldAside();
    // A later reload listed the files after this one: its figures are the newer ones.
    if (ticket !== this.reloads) return;
    this.others = others;
    if (!this.isDisposed) this.changed.fire();
  }

  private async readLedger(name: string): Promise<ReturnType<typeof readLedgerFile> | undefined> {
    let text: string | undefined;
    try {
      text = await this.folder.read(name);
    } catch (error) {
      this.logger.warn(`Cost file ${name} could not be read: ${describeError(error)}`);
      return undefined;
    }
    if (text === undefined) return undefined;
    const file = readLedgerFile(text, Date.now());
    if (file.kind === 'newer' && !this.newerLogged.has(name)) {
      this.newerLogged.add(name);
      this.logger.info(
        `Cost file ${name} is from a newer version of the extension: left out of today's total.`,
      );
    }
    if (file.kind !== 'unreadable') return file;
    const kept = await keepAside(this.folder, name, file.problem);
    this.logger.warn(
      `Cost file ${name} was left out of today's total: ${file.problem}${kept ? `; it was kept as ${kept.keptAs}` : ''}.`,
    );
    return file;
  }

  /** Deletes all but the newest few ledger files kept aside, so they never pile up. */
  private async dropOldAside(): Promise<void> {
    const names = await this.folder.list().catch(() => []);
    for (const name of asideOverflow(names, FILE_PREFIX, KEEP_ASIDE))
      await this.folder.delete(name).catch(() => undefined);
  }
}
