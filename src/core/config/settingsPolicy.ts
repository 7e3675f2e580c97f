/**
 * Where each setting may come from. A repository's own settings (`.vscode/settings.json`, the
 * `settings` of a `.code-workspace`) are outside data, like a reply from the gateway: they must not
 * choose where the API key goes, what it pays for, where prompts are routed, what the model is
 * told, or the caps that protect memory. Each setting declares here how far a workspace may set it;
 * `resolveSetting` applies that to what VS Code's `inspect()` reports for each level. Pure: the
 * host hands in the levels, the unit tests plain objects.
 */
import { isRecord } from '../../api/json';
import { Setting, VsCodeSetting } from '../ids';
import type { SettingId } from '../ids';

/** How far a workspace (its folder settings or its `.code-workspace`) may set a setting. */
export type WorkspacePolicy =
  /**
   * Never: only the user's settings count. The manifest gives it `"scope": "application"`, so VS
   * Code itself ignores a workspace's value; `resolveSetting` ignores it too, whatever VS Code does.
   */
  | 'never'
  /**
   * The workspace's value once the user accepted that exact value for that workspace, having seen
   * it; until then the user's own value is used.
   */
  | 'accept'
  /** The workspace's value wins, as VS Code does it (in a trusted workspace only). */
  | 'allow'
  /** The workspace may only narrow the user's value (add exclusions, turn something off). */
  | 'narrow';

export interface SettingPolicy {
  workspace: WorkspacePolicy;
  /** For `narrow`: the value in force, from the user's (or default) value and the workspace's. */
  narrow?: (user: unknown, workspace: unknown) => unknown;
}

/** Arrays: the workspace's entries are added to the user's, never replace them. */
function union(user: unknown, workspace: unknown): unknown {
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  return [...list(user), ...list(workspace)];
}

/** A record of `false` switches: the workspace may add `false` entries; the user's entries win. */
function onlyOff(user: unknown, workspace: unknown): unknown {
  const offs = isRecord(workspace)
    ? Object.fromEntries(Object.entries(workspace).filter((entry) => entry[1] === false))
    : {};
  return { ...offs, ...(isRecord(user) ? user : {}) };
}

/** A switch the workspace may turn off, never on. */
function andNot(user: unknown, workspace: unknown): unknown {
  return workspace === false ? false : user;
}

const NEVER: SettingPolicy = { workspace: 'never' };
const ACCEPT: SettingPolicy = { workspace: 'accept' };
const ALLOW: SettingPolicy = { workspace: 'allow' };

/**
 * Every setting of ours and its policy. A test checks it against package.json both ways (and the
 * manifest's scopes and `restrictedConfigurations` against it), and the README's settings table.
 */
export const SETTING_POLICIES: { readonly [K in SettingId]: SettingPolicy } = {
  // Where the key goes.
  [Setting.baseUrl]: NEVER,
  // What the gateway is sent (and so what a strict upstream refuses).
  [Setting.dialect]: NEVER,
  // What goes to the gateway with the key: its headers and how the key is sent.
  [Setting.requestHeaders]: NEVER,
  [Setting.authHeader]: NEVER,
  // What the key pays for: a per-project model is useful, so accepted once, seen.
  [Setting.chatModel]: ACCEPT,
  [Setting.mediaModel]: ACCEPT,
  // The list Select Chat Model offers: choosing from it is the user's click.
  [Setting.chatModels]: ALLOW,
  // What the model is told.
  [Setting.chatSystemPrompt]: NEVER,
  [Setting.chatTools]: NEVER,
  // What a reply costs, and where the prompt is routed.
  [Setting.chatMaxTokens]: NEVER,
  [Setting.chatReasoningEffort]: NEVER,
  [Setting.chatWebSearch]: NEVER,
  [Setting.chatProvider]: NEVER,
  [Setting.chatPlugins]: NEVER,
  [Setting.chatForceParameters]: NEVER,
  [Setting.chatPromptCaching]: NEVER,
  // What the key pays for: the model that summarises long chats.
  [Setting.chatCompactionModel]: NEVER,
  [Setting.mediaParameters]: NEVER,
  [Setting.mediaReferenceImageParameter]: NEVER,
  [Setting.mediaReferenceImageAs]: NEVER,
  // Which models VS Code's own chat is offered, for every window.
  [Setting.languageModelsInclude]: NEVER,
  // How a reply reads: the project may have a say.
  [Setting.chatTemperature]: ALLOW,
  [Setting.chatResponseFormat]: ALLOW,
  [Setting.chatImageInput]: ALLOW,
  // Requests made with the key, and the caps that protect memory and time.
  [Setting.mediaMaxConcurrentPolls]: NEVER,
  [Setting.mediaMaxPollIntervalSeconds]: NEVER,
  [Setting.requestTimeoutSeconds]: NEVER,
  [Setting.requestStreamIdleTimeoutSeconds]: NEVER,
  [Setting.requestMaxRetries]: NEVER,
  [Setting.requestMaxResponseMegabytes]: NEVER,
  [Setting.requestMaxStreamMinutes]: NEVER,
  // A folder inside the workspace: the project's to choose.
  [Setting.mediaSaveFolder]: ALLOW,
  // Removes stored results beyond it: the user's storage, not the project's.
  [Setting.mediaStorageLimitMB]: NEVER,
  // Every completion is a billed request that sends the open file.
  [Setting.inlineEnabled]: NEVER,
  [Setting.inlineModel]: NEVER,
  [Setting.inlineMode]: NEVER,
  // A project may keep more files from being sent, or switch completions off in a language.
  [Setting.inlineExclude]: { workspace: 'narrow', narrow: union },
  [Setting.inlineLanguages]: { workspace: 'narrow', narrow: onlyOff },
  // A project may turn the agent off, never on.
  [Setting.agentEnabled]: { workspace: 'narrow', narrow: andNot },
  [Setting.agentMaxSteps]: NEVER,
  [Setting.agentAlwaysAllow]: NEVER,
  [Setting.agentCommandTimeoutSeconds]: NEVER,
  // What a turn and a day may spend: the user's caps, never loosened by a repository.
  [Setting.agentMaxTurnCost]: NEVER,
  [Setting.agentMaxDailyCost]: NEVER,
  // Whether a repository's own instruction files are read while it is untrusted.
  [Setting.agentInstructionsInRestrictedMode]: NEVER,
};

/** VS Code's own settings we read: only ever the user's (VS Code scopes them so too). */
export const VSCODE_SETTING_POLICIES: {
  readonly [K in (typeof VsCodeSetting)[keyof typeof VsCodeSetting]]?: SettingPolicy;
} = {
  [VsCodeSetting.proxy]: NEVER,
};

/**
 * VS Code's own terminal settings that choose the shell a new terminal starts, its arguments and
 * its environment, for one platform (`process.platform`). VS Code applies a trusted workspace's
 * values of these to every terminal; a command the agent runs must not pick them up (an
 * environment's `BASH_ENV`, a profile whose path is the repository's own `bash`), so when the
 * workspace sets one, commands run as our own process instead (see the host's command runner).
 */
export function terminalSettingIds(platform: string): string[] {
  const os = platform === 'win32' ? 'windows' : platform === 'darwin' ? 'osx' : 'linux';
  return [
    `terminal.integrated.env.${os}`,
    `terminal.integrated.profiles.${os}`,
    `terminal.integrated.defaultProfile.${os}`,
    `terminal.integrated.automationProfile.${os}`,
    'terminal.integrated.inheritEnv',
    'terminal.integrated.shellIntegration.enabled',
    // Text VS Code types into a terminal when its output shows a pattern: typed into the agent's
    // terminal, it would run in the shell once the approved command ends.
    'terminal.integrated.autoReplies',
  ];
}

/** Whether a workspace (its `.code-workspace` or a folder's settings) sets this value. */
export function setByWorkspace(inspected: InspectedSetting | undefined): boolean {
  return inspected?.workspaceValue !== undefined || inspected?.workspaceFolderValue !== undefined;
}

/** What `WorkspaceConfiguration.inspect(key)` reports, the levels we read. */
export interface InspectedSetting {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export interface ResolveContext {
  /** `vscode.workspace.isTrusted`: an untrusted workspace's values are all ignored. */
  trusted: boolean;
  /** Whether the user accepted this exact value of this setting for this workspace. */
  accepted(id: string, value: unknown): boolean;
}

/** Why a workspace's value is not in force. */
export type IgnoredBecause = 'untrusted' | 'never' | 'not-accepted';

export interface ResolvedSetting {
  /** The value in force (undefined: the parser's default applies). */
  value: unknown;
  /** Where it came from. */
  from: 'default' | 'user' | 'workspace';
  /** The workspace set a value that is not in force, and why. */
  ignored?: { value: unknown; because: IgnoredBecause };
}

/** The workspace's own value: a folder's over the workspace's, as VS Code merges them. */
function workspaceLevel(inspected: InspectedSetting): unknown {
  return inspected.workspaceFolderValue !== undefined
    ? inspected.workspaceFolderValue
    : inspected.workspaceValue;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The value in force for one setting under its policy. The user's level is `globalValue` (VS
 * Code's user settings, remote machine settings included), else the default.
 */
export function resolveSetting(
  id: string,
  policy: SettingPolicy,
  inspected: InspectedSetting,
  context: ResolveContext,
): ResolvedSetting {
  const user: ResolvedSetting =
    inspected.globalValue !== undefined
      ? { value: inspected.globalValue, from: 'user' }
      : { value: inspected.defaultValue, from: 'default' };
  const workspace = workspaceLevel(inspected);
  if (workspace === undefined) return user;
  const ignore = (because: IgnoredBecause): ResolvedSetting => ({
    ...user,
    ignored: { value: workspace, because },
  });
  if (!context.trusted) return ignore('untrusted');
  switch (policy.workspace) {
    case 'never':
      return ignore('never');
    case 'accept':
      if (same(workspace, user.value)) return user;
      return context.accepted(id, workspace)
        ? { value: workspace, from: 'workspace' }
        : ignore('not-accepted');
    case 'allow':
      return { value: workspace, from: 'workspace' };
    case 'narrow': {
      const value = policy.narrow ? policy.narrow(user.value, workspace) : user.value;
      return same(value, user.value) ? user : { value, from: 'workspace' };
    }
  }
}

/** What remembers an accepted value: the workspace, the setting and the exact value. */
export function acceptanceKey(workspace: string, id: string, value: unknown): string {
  return JSON.stringify([workspace, id, value]);
}

/**
 * The settings of ours that a settings file's JSON (a folder's `settings.json`, or the `settings`
 * of a `.code-workspace`) sets, with their values, in the order written: keys written whole
 * (`"gateway.baseUrl"`) and nested (`"gateway": { "baseUrl": … }`), which VS Code reads alike
 * (and VS Code 1.100 applies nested ones whatever their scope). A setting written both ways is
 * listed twice.
 */
export function settingsIn(json: unknown, known: ReadonlySet<string>): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  const walk = (value: unknown, prefix: string, depth: number): void => {
    if (!isRecord(value) || depth > 4) return;
    for (const [key, inner] of Object.entries(value)) {
      const id = prefix ? `${prefix}.${key}` : key;
      if (known.has(id)) found.push([id, inner]);
      else if ([...known].some((k) => k.startsWith(`${id}.`))) walk(inner, id, depth + 1);
    }
  };
  walk(json, '', 0);
  return found;
}
