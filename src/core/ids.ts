/**
 * Every id the extension shares with VS Code: the commands, views, settings and context keys it
 * contributes in package.json, and the keys of its own stored state. Code uses these constants,
 * never string literals; a test checks them against package.json in both directions.
 */

/** Our id on the Marketplace: `publisher.name` from package.json. */
export const EXTENSION_ID = 'gateway-ai.gateway-ai';

export const Command = {
  setApiKey: 'gateway.setApiKey',
  clearApiKey: 'gateway.clearApiKey',
  manageApiKey: 'gateway.manageApiKey',
  signIn: 'gateway.signIn',
  connect: 'gateway.connect',
  signInWithCode: 'gateway.signInWithCode',
  signOut: 'gateway.signOut',
  /** Stores a header whose value is a secret (Helicone-Auth, x-portkey-api-key), for one origin. */
  setSecretHeader: 'gateway.setSecretHeader',
  newChat: 'gateway.newChat',
  ask: 'gateway.ask',
  explainSelection: 'gateway.explainSelection',
  selectModel: 'gateway.selectModel',
  generateMedia: 'gateway.generateMedia',
  refreshMediaJobs: 'gateway.refreshMediaJobs',
  openMediaResult: 'gateway.openMediaResult',
  removeMediaJob: 'gateway.removeMediaJob',
  copyMediaJobId: 'gateway.copyMediaJobId',
  clearFinishedMediaJobs: 'gateway.clearFinishedMediaJobs',
  refreshModelCatalog: 'gateway.refreshModelCatalog',
  addSelectionToChat: 'gateway.addSelectionToChat',
  addFileToChat: 'gateway.addFileToChat',
  addProblemsToChat: 'gateway.addProblemsToChat',
  addImageToChat: 'gateway.addImageToChat',
  saveMediaResult: 'gateway.saveMediaResult',
  insertMediaResult: 'gateway.insertMediaResult',
  openMediaGallery: 'gateway.openMediaGallery',
  rerunMediaJob: 'gateway.rerunMediaJob',
  mediaVariation: 'gateway.mediaVariation',
  generateMediaFromImage: 'gateway.generateMediaFromImage',
  inlineCompletionsMenu: 'gateway.inlineCompletions.menu',
  toggleInlineCompletions: 'gateway.inlineCompletions.toggle',
  /** The command of every inline suggestion: VS Code runs it when the suggestion is accepted. */
  inlineCompletionAccepted: 'gateway.inlineCompletions.accepted',
  showCost: 'gateway.showCost',
  /** Lists the command lines the agent may run without asking, to remove them. */
  manageAllowedCommands: 'gateway.agent.manageAllowedCommands',
  /** Lists the workspace's instruction files (AGENTS.md, rules folders) with a switch for each. */
  instructionFiles: 'gateway.agent.instructionFiles',
} as const;
export type CommandId = (typeof Command)[keyof typeof Command];

export const View = {
  container: 'gateway',
  chat: 'gateway.chat',
  mediaJobs: 'gateway.mediaJobs',
} as const;
export type ViewId = (typeof View)[keyof typeof View];

/** The command VS Code creates for each view: it reveals and focuses the view. */
export function focusCommand(view: ViewId): string {
  return `${view}.focus`;
}

/** Our settings, by full key. */
export const Setting = {
  baseUrl: 'gateway.baseUrl',
  dialect: 'gateway.dialect',
  /** Extra headers for every request to the gateway (Portkey, Helicone, Cloudflare, Azure). */
  requestHeaders: 'gateway.requestHeaders',
  /** How the key is sent: `bearer`, `api-key` or `none`. */
  authHeader: 'gateway.authHeader',
  chatModel: 'gateway.chat.model',
  chatModels: 'gateway.chat.models',
  chatSystemPrompt: 'gateway.chat.systemPrompt',
  chatTemperature: 'gateway.chat.temperature',
  chatMaxTokens: 'gateway.chat.maxTokens',
  chatReasoningEffort: 'gateway.chat.reasoningEffort',
  chatResponseFormat: 'gateway.chat.responseFormat',
  chatWebSearch: 'gateway.chat.webSearch',
  chatProvider: 'gateway.chat.provider',
  chatPlugins: 'gateway.chat.plugins',
  chatTools: 'gateway.chat.tools',
  chatImageInput: 'gateway.chat.imageInput',
  chatForceParameters: 'gateway.chat.forceParameters',
  chatPromptCaching: 'gateway.chat.promptCaching',
  chatCompactionModel: 'gateway.chat.compactionModel',
  languageModelsInclude: 'gateway.languageModels.include',
  mediaModel: 'gateway.media.model',
  mediaParameters: 'gateway.media.parameters',
  mediaMaxConcurrentPolls: 'gateway.media.maxConcurrentPolls',
  mediaMaxPollIntervalSeconds: 'gateway.media.maxPollIntervalSeconds',
  mediaSaveFolder: 'gateway.media.saveFolder',
  mediaStorageLimitMB: 'gateway.media.storageLimitMB',
  mediaReferenceImageParameter: 'gateway.media.referenceImageParameter',
  mediaReferenceImageAs: 'gateway.media.referenceImageAs',
  requestTimeoutSeconds: 'gateway.request.timeoutSeconds',
  requestStreamIdleTimeoutSeconds: 'gateway.request.streamIdleTimeoutSeconds',
  requestMaxRetries: 'gateway.request.maxRetries',
  requestMaxResponseMegabytes: 'gateway.request.maxResponseMegabytes',
  requestMaxStreamMinutes: 'gateway.request.maxStreamMinutes',
  inlineEnabled: 'gateway.inlineCompletions.enabled',
  inlineModel: 'gateway.inlineCompletions.model',
  inlineMode: 'gateway.inlineCompletions.mode',
  inlineExclude: 'gateway.inlineCompletions.exclude',
  inlineLanguages: 'gateway.inlineCompletions.languages',
  agentEnabled: 'gateway.agent.enabled',
  agentMaxSteps: 'gateway.agent.maxSteps',
  agentAlwaysAllow: 'gateway.agent.alwaysAllow',
  agentCommandTimeoutSeconds: 'gateway.agent.commandTimeoutSeconds',
  agentMaxTurnCost: 'gateway.agent.maxTurnCost',
  agentMaxDailyCost: 'gateway.agent.maxDailyCost',
  agentInstructionsInRestrictedMode: 'gateway.agent.instructionsInRestrictedMode',
} as const;
export type SettingId = (typeof Setting)[keyof typeof Setting];

/** Prefixes for `affectsConfiguration`: a change to any setting below them. */
export const SettingSection = {
  all: 'gateway',
  media: 'gateway.media',
  inline: 'gateway.inlineCompletions',
  agent: 'gateway.agent',
} as const;

/** VS Code's own settings that we read (not ours to contribute). */
export const VsCodeSetting = {
  proxy: 'http.proxy',
  /** The user's MCP servers as VS Code 1.99–1.101 kept them (later ones keep a profile `mcp.json`). */
  mcp: 'mcp',
} as const;

export const ContextKey = {
  hasApiKey: 'gateway.hasApiKey',
} as const;

/** Keys in SecretStorage and globalState, and other ids that only we read. */
export const StorageKey = {
  /** The key as earlier versions kept it: the bare key, bound to no origin (read once, then moved). */
  apiKey: 'gateway.apiKey',
  /** The key and the origin it belongs to, as one JSON value (core/config/keyOrigin). */
  boundApiKey: 'gateway.apiKey.bound',
  /**
   * In the browser build: that a key was stored (never the key), so a key that is gone at the next
   * start shows the browser keeps secrets only for a session (host/auth/sessionSecrets).
   */
  keyWasStored: 'gateway.keyWasStored',
  /** Secret request headers, per gateway origin, as one JSON value (core/config/secretHeaders). */
  secretHeaders: 'gateway.secretHeaders',
  /** Hashes of the workspace values of `accept` settings the user accepted, per workspace. */
  acceptedWorkspaceSettings: 'gateway.acceptedWorkspaceSettings',
  recentModels: 'gateway.recentModels',
  favouriteModels: 'gateway.favouriteModels',
  /** Per model: the reasoning effort and the routing chosen in the chat's model menu. */
  modelChoices: 'gateway.modelChoices',
  /** Per chat: web search, PDF parsing and context compression, as toggled in the chat. */
  chatTools: 'gateway.chatTools',
  /** Per chat: the agent's tool picker (tools off, sources off). */
  agentToolChoices: 'gateway.agent.toolChoices',
  mediaJobs: 'gateway.mediaJobs',
  /** The folder in global storage, and the file in it, that every window's media jobs share. */
  mediaJobsFolder: 'media-jobs',
  mediaJobsFile: 'jobs.json',
  /** The folder in global storage that holds media results, one file per output. */
  mediaResultsFolder: 'media',
  /** The folder in global storage that holds each window's cost ledger (today's cost). */
  costFolder: 'cost',
  /** The folder in global storage that holds reference images of media jobs, one file per image. */
  mediaReferencesFolder: 'media-references',
  /** Which jobs' results were saved into the workspace: one globalState key per job, by this prefix. */
  mediaSavedPrefix: 'gateway.mediaSaved/',
  /** The same, as earlier versions kept it: one object under one key (moved to the keys above). */
  mediaSaved: 'gateway.mediaSaved',
  /** Today's inline completions: `{day, accepted, cost, requests}` in globalState. */
  inlineToday: 'gateway.inlineCompletions.today',
  /** In workspaceState: hashes of the MCP server launches the user agreed to start here. */
  mcpConsent: 'gateway.agent.mcpConsent',
  /** In globalState: the exact command lines (with their folder) the user allowed the agent always. */
  agentAllowedCommands: 'gateway.agent.allowedCommands',
  /** In workspaceState: the instruction files the user switched off here (workspace paths). */
  instructionsOff: 'gateway.agent.instructionsOff',
  /** In workspaceState: the user chose to read instruction files in this Restricted Mode workspace. */
  instructionsTrusted: 'gateway.agent.instructionsTrusted',
  /** In workspaceState: the models of workspace agent files the user accepted here (`path\nmodel`). */
  acceptedAgentModels: 'gateway.agent.acceptedAgentModels',
  /** In globalState: what was learned of each gateway (refused fields, models without tools), by base URL. */
  learnedDialects: 'gateway.learnedDialects',
} as const;

/** Tools contributed to VS Code's agents (`languageModelTools`); their names use `_`, not `.`. */
export const Tool = {
  generateMedia: 'gateway_generateMedia',
} as const;

/** Our vendor in VS Code's language-model API (`languageModelChatProviders` in package.json). */
export const LM_VENDOR = 'gateway';

/** Ids of status-bar items and webview panel types (not contributed, but unique to us). */
export const UiId = {
  modelStatus: 'gateway.model',
  costStatus: 'gateway.cost',
  mediaStatus: 'gateway.mediaJobs',
  inlineStatus: 'gateway.inlineCompletions',
  mediaPreview: 'gateway.mediaPreview',
  mediaGallery: 'gateway.mediaGallery',
  /** The MIME type of media jobs dragged from the Media Jobs tree (VS Code's scheme for trees). */
  mediaJobDrag: 'application/vnd.code.tree.gateway.mediajobs',
} as const;
