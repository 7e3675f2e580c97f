import type * as vscode from 'vscode';
import type { GatewaySettings } from '../../core/config/settingsModel';

export {
  DEFAULT_BASE_URL,
  isModelId,
  modelIdProblem,
  toModelId,
  validateBaseUrl,
  type GatewaySettings,
} from '../../core/config/settingsModel';

/** Which settings a change touched: by full key or by a section (`gateway.media`). */
export interface SettingsChange {
  affects(keyOrSection: string): boolean;
}

/**
 * Every setting, typed, each taken only from where its policy allows (core/config/settingsPolicy):
 * what features read. The one implementation is SettingsService, made at activation and handed to
 * every feature.
 */
export interface Settings {
  /**
   * The settings in force (cheap to read at each use): each section is resolved and parsed on its
   * first read after a change, so nothing is read before something needs it.
   */
  readonly current: GatewaySettings;
  /**
   * Fires when a value in force changed: a setting, workspace trust being granted, or the user
   * accepting a workspace's value. Only the keys whose value changed are affected.
   */
  readonly onDidChange: vscode.Event<SettingsChange>;
  /**
   * VS Code's own terminal settings (shell, profiles, environment) that the workspace sets, at
   * the moment of the call: a command the user approved must not run in a shell the repository
   * chose (see `terminalSettingIds`).
   */
  workspaceTerminalSettings(): string[];
}
