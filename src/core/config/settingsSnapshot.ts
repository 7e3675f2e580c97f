/**
 * The settings in force at one moment, resolved setting by setting on first use. Asking VS Code
 * for one setting's levels (`inspect()`) costs about a quarter of a millisecond, so reading all of
 * them at activation cost over 15 ms: a snapshot asks only for the settings of the sections that
 * are read, and the rest when something needs them all (the workspace notices, a change).
 *
 * The levels are asked for lazily, so they are those of the moment of the first use, not of the
 * snapshot's making. When the configuration changes, `changedKeys` compares the old snapshot with
 * the new one and fills in what the old one had not read yet, so a snapshot someone kept never
 * asks for levels again once it is replaced. Pure: the host hands in `inspect`, the tests objects.
 */
import { parseSettingsLazily } from './settingsModel';
import type { GatewaySettings } from './settingsModel';
import { resolveSetting } from './settingsPolicy';
import type { InspectedSetting, ResolveContext, ResolvedSetting, SettingPolicy } from './settingsPolicy';

export class SettingsSnapshot {
  private readonly resolved = new Map<string, ResolvedSetting>();
  private readonly levels = new Map<string, InspectedSetting>();
  /** Every setting in force, each section parsed on its first read. */
  readonly settings: GatewaySettings;

  constructor(
    private readonly policies: ReadonlyMap<string, SettingPolicy>,
    private readonly inspect: (key: string) => InspectedSetting | undefined,
    /** Whether the workspace was trusted and what was accepted, when the snapshot was made. */
    readonly context: ResolveContext,
  ) {
    this.settings = parseSettingsLazily((key) => this.get(key)?.value);
  }

  /** The setting in force, under its policy (undefined for a key without a policy). */
  get(key: string): ResolvedSetting | undefined {
    const known = this.resolved.get(key);
    if (known) return known;
    const policy = this.policies.get(key);
    if (!policy) return undefined;
    const resolved = resolveSetting(key, policy, this.levelsOf(key), this.context);
    this.resolved.set(key, resolved);
    return resolved;
  }

  /** Whether `key` was resolved already (read, or filled in when the snapshot was replaced). */
  has(key: string): boolean {
    return this.resolved.has(key);
  }

  /** Every setting in force, each with what the workspace set that is not used. */
  all(): ReadonlyMap<string, ResolvedSetting> {
    for (const key of this.policies.keys()) this.get(key);
    return this.resolved;
  }

  /** What `inspect()` reported for `key`, asked once. */
  levelsOf(key: string): InspectedSetting {
    let levels = this.levels.get(key);
    if (!levels) {
      levels = this.inspect(key) ?? {};
      this.levels.set(key, levels);
    }
    return levels;
  }

  /** Records what `key` was in this snapshot, found after its levels changed. */
  private fill(key: string, resolved: ResolvedSetting): void {
    if (!this.resolved.has(key)) this.resolved.set(key, resolved);
  }

  /**
   * The keys whose value in force differs between `before` and `after` (which resolves them all).
   * A key `before` never resolved is resolved now, under its own context, from the levels `after`
   * reads, when `sameLevels(key)` says its levels did not change in between (a configuration change
   * that does not affect it, or none at all); else its old value is unknown and it counts as
   * changed, so no listener misses a change. Either way `before` keeps the value from now on.
   */
  static changedKeys(
    before: SettingsSnapshot,
    after: SettingsSnapshot,
    sameLevels: (key: string) => boolean,
  ): string[] {
    const changed: string[] = [];
    for (const [key, now] of after.all()) {
      let then = before.has(key) ? before.get(key) : undefined;
      if (!then) {
        const policy = before.policies.get(key);
        if (policy && sameLevels(key)) {
          then = resolveSetting(key, policy, after.levelsOf(key), before.context);
        } else {
          before.fill(key, now);
          changed.push(key);
          continue;
        }
        before.fill(key, then);
      }
      if (JSON.stringify(now.value) !== JSON.stringify(then.value)) changed.push(key);
    }
    return changed;
  }
}
