import type * as vscode from 'vscode';
import type { Conversation } from '../../core/chat/conversation';
import type { ConversationStore } from '../../core/chat/conversationStore';
import type { TurnQueue } from '../../core/chat/turnQueue';
import type { ChatAgent } from '../agent/chatAgent';
import type { WorkspaceCheckpoints } from '../agent/checkpoints/workspaceCheckpoints';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { Settings } from '../config/settings';
import type { CostTracker } from '../cost/costTracker';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { AgentPanel } from './agentPanel';
import type { AttachmentTray } from './attachments';
import { ChatMedia } from './chatMedia';
import type { ChatMediaJobs } from './chatMedia';
import { ContextMeter } from './contextMeter';
import type { InstructionFiles } from './instructionFiles';
import type { ChatModes } from './agentModes';
import { MediaTurns } from './mediaTurns';
import type { ModelChoicesStore } from './modelChoices';
import { ChatModelMenu } from './modelMenu';
import { ModelGate } from './turn/modelGate';
import type { TurnHost } from './turn/turnHost';
import { TurnRunner } from './turnRunner';

export interface ChatSessionDeps {
  gateway: GatewayService;
  store: ConversationStore;
  apiKey: ApiKeyStore;
  settings: Settings;
  logger: Logger;
  catalog?: CatalogFeature;
  tray?: AttachmentTray;
  /** Today's cost: each reply's is recorded there. */
  costs?: CostTracker;
  /** The media-jobs feature (loaded on first call), for media commands and their cards. */
  media?: () => ChatMediaJobs;
  /** The chat view's webview while it is open. */
  webview?: () => vscode.Webview | undefined;
  /** Whether the chat view is in sight. */
  visible?: () => boolean;
  /** The model menu's choices (effort and routing per model, tools per chat). */
  choices?: ModelChoicesStore;
  /** The agent: tools, approvals and undo (absent: plain replies only). */
  agent?: ChatAgent;
  /** The workspace's instruction files (AGENTS.md, rules folders). */
  instructions?: InstructionFiles;
  /** Snapshots of the workspace before an agent step's first change. */
  checkpoints?: WorkspaceCheckpoints;
  /** The chat's mode (Agent, Plan, Ask, a workspace agent): it only narrows a turn. */
  modes?: ChatModes;
}

/** The session's parts, each built on the session's side of a turn (`host`). */
export function sessionParts(
  deps: ChatSessionDeps,
  host: TurnHost,
  queue: TurnQueue,
  session: {
    /** The conversation open now, without loading one. */
    open(): Conversation | undefined;
    removeFrom(conversation: Conversation, index: number): void;
  },
) {
  const models = new ModelGate(deps);
  /** The model menu (effort, routing, the chat's tools), where its store is wired in. */
  const menu =
    deps.choices &&
    new ChatModelMenu({
      store: deps.choices,
      settings: deps.settings,
      catalog: deps.catalog,
      post: (message) => host.post(message),
      chatId: async () => (await host.current()).id,
      entry: (model) => models.entry(model),
    });
  const media = deps.media;
  const chatMedia =
    media &&
    new ChatMedia({
      media,
      webview: () => deps.webview?.(),
      visible: () => deps.visible?.() ?? false,
      catalogEntry: (model) => models.entry(model),
      post: (message) => host.post(message),
      settings: deps.settings,
      logger: deps.logger,
    });
  /** `/image …` and the other media commands, where the media feature is wired in. */
  const mediaTurns = chatMedia && new MediaTurns(chatMedia, host, deps.logger);
  return {
    models,
    menu,
    chatMedia,
    media: mediaTurns,
    meter: new ContextMeter({ ...deps, host, models }),
    agentPanel: deps.agent && new AgentPanel(deps.agent, { ...deps, ...session, host, models }),
    runner: new TurnRunner({
      ...deps,
      models,
      queue,
      menu,
      host,
      drawn:
        mediaTurns &&
        ((conversation, turn, images) => void mediaTurns.adoptDrawn(conversation, turn, images)),
    }),
  };
}
