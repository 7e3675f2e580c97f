import * as vscode from 'vscode';
import { Setting } from '../../core/ids';
import type { HostMessage } from '../../core/protocol/chatProtocol';
import type { ChatAgent } from '../agent/chatAgent';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { Settings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { AttachmentTray } from './attachments';

/** What the chat view shows that follows the world outside the conversation. */
export interface FollowedParts {
  post(message: HostMessage): void;
  /** The context meter. */
  context(): void;
  /** The model menu. */
  menu(): void;
  /** The tool picker. */
  agentTools(): void;
}

/**
 * Keeps the view's meter, model menu, tool picker, key and trust state following the tray, the
 * catalog, the key, the tool sources, workspace trust and the settings.
 */
export function followForView(
  deps: {
    settings: Settings;
    apiKey: ApiKeyStore;
    tray?: AttachmentTray;
    catalog?: CatalogFeature;
    agent?: ChatAgent;
    gateway?: Pick<GatewayService, 'onDialectNotice'>;
  },
  parts: FollowedParts,
): vscode.Disposable[] {
  const { settings } = deps;
  const affects = (change: { affects(id: string): boolean }, ids: string[]) =>
    ids.some((s) => change.affects(s));
  return [
    ...(deps.tray ? [deps.tray.onDidChange(() => parts.context())] : []),
    ...(deps.catalog
      ? [
          deps.catalog.catalog.onDidChange(() => {
            parts.context();
            parts.menu();
          }),
        ]
      : []),
    deps.apiKey.onDidChange((key) => parts.post({ type: 'apiKey', hasApiKey: !!key })),
    ...(deps.agent ? [deps.agent.onDidChange(() => parts.agentTools())] : []),
    // The gateway refused tools for a model: the tool picker says so.
    ...(deps.gateway
      ? [deps.gateway.onDialectNotice((notice) => notice.field === 'tools' && parts.agentTools())]
      : []),
    vscode.workspace.onDidGrantWorkspaceTrust(() =>
      parts.post({ type: 'workspaceTrust', restricted: false }),
    ),
    settings.onDidChange((change) => {
      if (change.affects(Setting.chatModel)) {
        parts.post({ type: 'model', model: settings.current.chat.model });
        parts.context();
      }
      if (affects(change, [Setting.chatModel, Setting.agentEnabled, Setting.chatForceParameters]))
        parts.agentTools();
      if (
        affects(change, [Setting.chatModel, Setting.chatProvider, Setting.chatPlugins, Setting.chatWebSearch])
      )
        parts.menu();
    }),
  ];
}
