import * as vscode from 'vscode';
import { isRecord } from '../../api/json';
import { parseJsonc } from '../../core/agent/mcpConfig';
import type { GatewaySettings } from '../../core/config/settingsModel';
import { SettingsSnapshot } from '../../core/config/settingsSnapshot';
import {
  acceptanceKey,
  SETTING_POLICIES,
  setByWorkspace,
  settingsIn,
  terminalSettingIds,
  VSCODE_SETTING_POLICIES,
} from '../../core/config/settingsPolicy';
import type { ResolvedSetting, SettingPolicy } from '../../core/config/settingsPolicy';
import { Setting, SettingSection, StorageKey } from '../../core/ids';
import { inertText } from '../../core/util/text';
import { Disposable } from '../../core/util/lifecycle';
import { textOf } from '../boundedRead';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import { readWorkspaceFile } from '../workspaceFile';
import type { Settings, SettingsChange } from './settings';
import { sha256Hex } from '../../core/util/sha256';
import { osPlatform } from '../platform';

/** Every key read, with its policy: ours, then VS Code's proxy settings. */
const POLICIES: ReadonlyMap<string, SettingPolicy> = new Map([
  ...Object.entries(SETTING_POLICIES),
  ...Object.entries(VSCODE_SETTING_POLICIES).filter((e): e is [string, SettingPolicy] => !!e[1]),
]);
const OURS: ReadonlySet<string> = new Set(Object.keys(SETTING_POLICIES));
/** Changes in a burst (a file saved twice, several settings written) give one look at the notices. */
const NOTICE_DELAY_MS = 300;
/** A change under these may change what is read. */
const READ_SECTIONS = [SettingSection.all, ...Object.keys(VSCODE_SETTING_POLICIES)];
/** Accepted workspace values kept at most (newest last). */
const MAX_ACCEPTED = 200;
/**
 * Notifications about workspace values shown at most per window: a workspace that rewrites its
 * settings in a loop gets the rest in the log only.
 */
const MAX_NOTICES = 5;
/** A settings file larger than this is not read for the notice (VS Code reads it for itself). */
const MAX_SETTINGS_FILE_BYTES = 1024 * 1024;

/** What a workspace value is called in the question whether to use it. */
const NOUNS: Readonly<Record<string, string>> = {
  [Setting.chatModel]: 'chat model',
  [Setting.mediaModel]: 'media model',
};

interface Snapshot {
  /** The settings in force, each resolved on first use (see SettingsSnapshot). */
  values: SettingsSnapshot;
  /** The workspace the acceptances were looked up for. */
  workspace: string;
}

/**
 * The one settings service: reads every setting through `inspect()`, takes each value only from
 * where its policy allows (never a workspace value for what decides where the key goes, what it
 * pays for or what the model is told; no workspace value at all in Restricted Mode), parses once
 * per change, and tells its listeners which values in force changed. Nothing is read at
 * activation: a section's settings are inspected when it is first read, every setting for the
 * notices (a moment after activation) and at each change.
 *
 * It also tells the user, once per window, when a workspace set something that is not used: a
 * value it may never set (found through `inspect()` or in its settings files, since VS Code hides
 * application-scoped values a workspace writes) or a model it may set only once accepted, asked
 * with the value shown.
 */
export class SettingsService extends Disposable implements Settings {
  private snapshot: Snapshot;
  private readonly changed = this.register(new vscode.EventEmitter<SettingsChange>());
  readonly onDidChange = this.changed.event;
  /** Workspace values already asked about or reported in this window. */
  private readonly told = new Set<string>();
  private noticesShown = 0;
  /** Watchers of the workspace's settings files, made with the first notice (not at activation). */
  private fileWatchers: vscode.Disposable[] | undefined;
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly state: vscode.Memento,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
  ) {
    super();
    this.snapshot = this.read();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (READ_SECTIONS.some((section) => e.affectsConfiguration(section)))
          this.reread((key) => !e.affectsConfiguration(key));
      }),
    );
    this.register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        // Untrusted, every value in force came from the user's level or the default, which trust
        // does not change; the workspace's levels it does change, without saying which.
        const untrusted = !this.snapshot.values.context.trusted;
        this.reread(() => untrusted);
      }),
    );
    this.register(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.unwatchFiles();
        // Other folders: other levels, and which settings changed is not said.
        this.reread(() => false);
      }),
    );
    this.register({ dispose: () => this.unwatchFiles() });
    this.register({ dispose: () => clearTimeout(this.noticeTimer) });
    this.scheduleNotices();
  }

  get current(): GatewaySettings {
    return this.snapshot.values.settings;
  }

  workspaceTerminalSettings(): string[] {
    const scopes = [undefined, ...(vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri)];
    return terminalSettingIds(osPlatform()).filter((id) =>
      scopes.some((scope) => setByWorkspace(vscode.workspace.getConfiguration(undefined, scope).inspect(id))),
    );
  }

  /** What the user's settings file holds for `id` (no default, no workspace), or undefined. */
  userValue(id: string): unknown {
    return vscode.workspace.getConfiguration().inspect(id)?.globalValue;
  }

  /**
   * Reads again and announces what changed in force (nothing, if nothing did). `sameLevels(key)`:
   * whether what inspect() reports for `key` is known not to have changed since the last read.
   */
  private reread(sameLevels: (key: string) => boolean): void {
    const before = this.snapshot;
    const next = this.read();
    // Compared before the new values are in force; if the comparison fails, everything counts as
    // changed, so that no feature keeps an old base URL or proxy while `current` says another.
    let keys: string[] | undefined;
    try {
      keys = SettingsSnapshot.changedKeys(before.values, next.values, sameLevels);
    } catch (error) {
      this.logger.warn(
        `Settings: could not tell what changed (${inertText(String(error))}); all are re-read.`,
      );
    }
    this.snapshot = next;
    if (!keys || keys.length)
      this.changed.fire({
        affects: (section) => !keys || keys.some((key) => key === section || key.startsWith(`${section}.`)),
      });
    this.scheduleNotices();
  }

  /** The settings in force from now on; no setting is inspected until it is used. */
  private read(): Snapshot {
    const workspace = workspaceIdentity();
    const accepted = this.acceptedKeys();
    const context = {
      trusted: vscode.workspace.isTrusted,
      accepted: (id: string, value: unknown) => accepted.has(hashed(acceptanceKey(workspace, id, value))),
    };
    let configuration: vscode.WorkspaceConfiguration | undefined;
    const inspect = (key: string) => (configuration ??= vscode.workspace.getConfiguration()).inspect(key);
    return { values: new SettingsSnapshot(POLICIES, inspect, context), workspace };
  }

  private acceptedKeys(): Set<string> {
    const stored = this.state.get<unknown>(StorageKey.acceptedWorkspaceSettings);
    return new Set(Array.isArray(stored) ? stored.filter((k): k is string => typeof k === 'string') : []);
  }

  /** Remembers that the user accepted this workspace's `value` of `id`, and applies it. */
  private async accept(workspace: string, id: string, value: unknown): Promise<void> {
    const key = hashed(acceptanceKey(workspace, id, value));
    const list = [...this.acceptedKeys()].filter((k) => k !== key);
    await this.state.update(StorageKey.acceptedWorkspaceSettings, [...list, key].slice(-MAX_ACCEPTED));
    // Only what was accepted changed, not what inspect() reports.
    this.reread(() => true);
  }

  /** Off the path of whatever changed the settings: the notices, and the read of the files they need. */
  private scheduleNotices(): void {
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => void this.notices(), NOTICE_DELAY_MS);
  }

  /**
   * A value VS Code hides (an application setting in a workspace file) changes no configuration:
   * the files themselves are watched, for the notice. Each watcher looks at one folder, not
   * recursively: a recursive watcher over the workspace, made at activation, was seen to hold up
   * a terminal's shell integration in VS Code 1.139.
   */
  private watchFiles(): void {
    if (this.fileWatchers) return;
    const watchers: vscode.Disposable[] = [];
    const watch = (folder: vscode.Uri, name: string) => {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, name));
      watchers.push(
        watcher,
        watcher.onDidChange(() => this.scheduleNotices()),
      );
      watchers.push(watcher.onDidCreate(() => this.scheduleNotices()));
    };
    for (const folder of vscode.workspace.workspaceFolders ?? [])
      watch(vscode.Uri.joinPath(folder.uri, '.vscode'), 'settings.json');
    const workspaceFile = vscode.workspace.workspaceFile;
    if (workspaceFile?.scheme === 'file')
      watch(
        vscode.Uri.joinPath(workspaceFile, '..'),
        workspaceFile.path.slice(workspaceFile.path.lastIndexOf('/') + 1),
      );
    this.fileWatchers = watchers;
  }

  private unwatchFiles(): void {
    for (const watcher of this.fileWatchers ?? []) watcher.dispose();
    this.fileWatchers = undefined;
  }

  private async notices(): Promise<void> {
    if (this.isDisposed) return;
    this.watchFiles();
    const { values, workspace } = this.snapshot;
    // Every setting resolved from here on: a change can then be told exactly (see changedKeys).
    const resolved = values.all();
    // In Restricted Mode the chat panel says that every workspace value is ignored.
    if (!vscode.workspace.isTrusted) return;
    for (const [id, entry] of resolved)
      if (entry.ignored?.because === 'not-accepted') this.askToAccept(workspace, id, entry);
    const never: Array<[string, unknown]> = [];
    for (const [id, entry] of resolved)
      if (entry.ignored?.because === 'never') never.push([id, entry.ignored.value]);
    // VS Code hides an application-scoped value a workspace writes from `inspect()`: the files tell.
    for (const [id, value] of await workspaceSettingsFiles())
      if (SETTING_POLICIES[id as keyof typeof SETTING_POLICIES]?.workspace === 'never')
        never.push([id, value]);
    if (this.isDisposed || this.snapshot.workspace !== workspace) return;
    this.reportIgnored(workspace, never);
  }

  private askToAccept(workspace: string, id: string, entry: ResolvedSetting): void {
    const value = entry.ignored?.value;
    const told = `${workspace}\n${acceptanceKey(workspace, id, value)}`;
    if (this.told.has(told)) return;
    this.told.add(told);
    const noun = NOUNS[id] ?? id;
    const theirs = shown(value, 60);
    const mine = shown(entry.value, 60);
    this.logger.info(`This workspace sets ${id} to ${theirs}; it is not used unless the user accepts it.`);
    if (!this.mayNotify()) return;
    const use = `Use ${theirs} Here`;
    const keep = entry.value === undefined || entry.value === '' ? 'Keep Mine' : `Keep ${mine}`;
    void notify
      .info(
        `Gateway AI: this workspace's settings choose the ${noun} ${theirs} (${id}), which your API key pays for. ` +
          `It is not used until you accept it for this workspace; until then your own ${entry.value ? mine : 'setting'} is.`,
        use,
        keep,
      )
      .then((choice) => {
        if (choice === use) return this.accept(workspace, id, value);
      });
  }

  /** Whether one more notification about workspace values may be shown in this window. */
  private mayNotify(): boolean {
    if (this.noticesShown >= MAX_NOTICES) return false;
    this.noticesShown++;
    return true;
  }

  private reportIgnored(workspace: string, found: ReadonlyArray<[string, unknown]>): void {
    const told = ([id, value]: [string, unknown]) => `${workspace}\n${id}\n${JSON.stringify(value)}`;
    const ignored = [...new Map(found.map((entry) => [told(entry), entry])).values()];
    if (ignored.every((entry) => this.told.has(told(entry)))) return;
    for (const entry of ignored) this.told.add(told(entry));
    const listed = ignored
      .map(([id, value]) =>
        typeof value === 'string' && value.length <= 80 ? `${id} (${shown(value, 80)})` : id,
      )
      .join(', ');
    this.logger.warn(`Ignored settings this workspace sets (user settings only): ${listed}.`);
    if (!this.mayNotify()) return;
    const open = 'Open Workspace Settings';
    void notify
      .warn(
        `Gateway AI ignored settings this workspace sets: ${listed}. Where your API key goes, what it pays for, ` +
          'what the model is told and the limits that protect this computer come only from your user settings.',
        open,
      )
      .then((choice) => {
        if (choice === open)
          void vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile');
      });
  }
}

/** The workspace, as acceptances are kept for it: its `.code-workspace`, or its folders. */
function workspaceIdentity(): string {
  const file = vscode.workspace.workspaceFile;
  if (file) return file.toString();
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString()).join('\n');
}

function hashed(text: string): string {
  return sha256Hex(text);
}

/** A value as a notification shows it: quoted, one line, inert, cut. */
function shown(value: unknown, max: number): string {
  return `"${inertText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), max)}"`;
}

/**
 * Our settings as the workspace's own files write them: each folder's `.vscode/settings.json` and
 * the `settings` of its `.code-workspace`. Unreadable or malformed files count as empty.
 */
async function workspaceSettingsFiles(): Promise<Array<[string, unknown]>> {
  const files: Array<{ uri: vscode.Uri; inner?: string }> = (vscode.workspace.workspaceFolders ?? []).map(
    (folder) => ({ uri: vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json') }),
  );
  const workspaceFile = vscode.workspace.workspaceFile;
  if (workspaceFile && workspaceFile.scheme !== 'untitled')
    files.push({ uri: workspaceFile, inner: 'settings' });
  const found: Array<[string, unknown]> = [];
  for (const { uri, inner } of files) {
    // Only a regular file of a sane size: a repository can make it a link to /dev/zero or a huge file.
    const read = await readWorkspaceFile(uri, MAX_SETTINGS_FILE_BYTES);
    if (!read.ok) continue;
    const json = parseJsonc(textOf(read.bytes));
    const settings = inner ? (isRecord(json) ? json[inner] : undefined) : json;
    found.push(...settingsIn(settings, OURS));
  }
  return found;
}
