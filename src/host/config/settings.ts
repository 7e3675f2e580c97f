import * as vscode from 'vscode';
import { SettingSection, VsCodeSetting } from '../../core/ids';
import { parseSettings } from '../../core/config/settingsModel';
import type { GatewaySettings } from '../../core/config/settingsModel';

export {
  DEFAULT_BASE_URL,
  isModelId,
  validateBaseUrl,
  type GatewaySettings,
} from '../../core/config/settingsModel';

/** Reads (and clamps) every setting. Cheap: call it at each use so a change applies at once. */
export function readSettings(): GatewaySettings {
  const configuration = vscode.workspace.getConfiguration();
  return parseSettings((key) => configuration.get(key));
}

export function affectsGateway(event: vscode.ConfigurationChangeEvent): boolean {
  return (
    event.affectsConfiguration(SettingSection.all) ||
    event.affectsConfiguration(VsCodeSetting.proxy) ||
    event.affectsConfiguration(VsCodeSetting.noProxy)
  );
}
