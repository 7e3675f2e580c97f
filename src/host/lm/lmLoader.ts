/**
 * Registers the gateway's models with VS Code's chat where this VS Code has the finalized
 * provider API (1.104+), found at run time; elsewhere (1.100) nothing is registered and nothing is
 * logged as an error. Activation registers a small stand-in that owns the change event; the
 * provider itself (`lmBundle.ts`) is evaluated on VS Code's first call.
 */
import * as vscode from 'vscode';
import { LM_VENDOR, Setting } from '../../core/ids';
import { LazyFeature } from '../lazyFeature';
import type { GatewayChatModelProvider, LmProviderDeps } from './lmBundle';
import type { LanguageModelChatProvider, LanguageModelProviderApi } from './vscodeLmTypes';

/** The settings that change which models are offered, or how they are described. */
const MODEL_SETTINGS = [
  Setting.baseUrl,
  Setting.chatModel,
  Setting.chatModels,
  Setting.languageModelsInclude,
];

export function registerLanguageModels(
  deps: LmProviderDeps,
): LazyFeature<GatewayChatModelProvider> | undefined {
  const lm = vscode.lm as unknown as Partial<LanguageModelProviderApi> | undefined;
  if (typeof lm?.registerLanguageModelChatProvider !== 'function') {
    deps.logger.info(
      `VS Code ${vscode.version} has no language-model provider API: gateway models are not offered in its chat.`,
    );
    return undefined;
  }
  const provider = new LazyFeature(
    'language models',
    () => new (loadLmBundle().GatewayChatModelProvider)(deps),
    deps.logger,
  );
  const changed = provider.track(new vscode.EventEmitter<void>());
  // VS Code asks again for the models when the catalog, the key or the settings change.
  provider.track(deps.catalog.onDidChange(() => changed.fire()));
  provider.track(deps.apiKey.onDidChange(() => changed.fire()));
  provider.track(
    deps.settings.onDidChange((change) => {
      if (MODEL_SETTINGS.some((s) => change.affects(s))) changed.fire();
    }),
  );
  const shim: LanguageModelChatProvider = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation: (options, token) =>
      provider.get().provideLanguageModelChatInformation(options, token),
    provideLanguageModelChatResponse: (model, messages, options, progress, token) =>
      provider.get().provideLanguageModelChatResponse(model as never, messages, options, progress, token),
    provideTokenCount: (model, text) => provider.get().provideTokenCount(model as never, text),
  };
  try {
    provider.track(lm.registerLanguageModelChatProvider(LM_VENDOR, shim));
  } catch (error) {
    // A version where the API is still a proposal refuses the call.
    deps.logger.info(
      `Gateway models are not offered in VS Code's chat: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return provider;
}

function loadLmBundle(): typeof import('./lmBundle') {
  // Bundled in, and evaluated only on this first `require` (esbuild keeps a required module's body
  // unrun until then), so activation does not run it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./lmBundle') as typeof import('./lmBundle');
}
