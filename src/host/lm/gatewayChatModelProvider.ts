/**
 * Gateway models in VS Code's own chat: the implementation behind the provider that
 * `lmLoader.ts` registers for vendor `gateway` (loaded with the `lm` bundle on VS Code's first
 * call). Requests go through the extension's one gateway client (retries, redaction, request
 * log); the models come from the shared model catalog; the mapping itself lives in src/core/lm and
 * is tested in plain Node.
 */
import * as vscode from 'vscode';
import type { Usage } from '../../api/types';
import { Command } from '../../core/ids';
import { toLmFailure } from '../../core/lm/errors';
import { toOpenAiMessages } from '../../core/lm/messages';
import { buildModelInfos, modelEfforts } from '../../core/lm/modelInfo';
import type { LmModelInfo } from '../../core/lm/modelInfo';
import { ReplyAssembler } from '../../core/lm/replyParts';
import type { ReplyPart } from '../../core/lm/replyParts';
import { buildLmRequest } from '../../core/lm/request';
import { estimateMessageTokens, estimateTextTokens } from '../../core/lm/tokens';
import { estimateCost } from '../../core/cost/replyCost';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { ModelCatalog } from '../catalog/modelCatalog';
import type { CostTracker } from '../cost/costTracker';
import type { Settings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { toLmMessage } from './parts';
import { newerClasses } from './vscodeLmTypes';
import type {
  LanguageModelChatRequestMessage,
  PrepareLanguageModelChatModelOptions,
  ProvideLanguageModelChatResponseOptions,
} from './vscodeLmTypes';

/** One finished request's usage, for the log and the running total. */
export interface LmUsageReport {
  model: string;
  usage: Usage | undefined;
}

export interface LmProviderDeps {
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  settings: Settings;
  catalog: ModelCatalog;
  logger: Logger;
  onUsage?: (report: LmUsageReport) => void;
  /** Today's cost: each reply's is recorded there as VS Code's chat's. */
  costs?: CostTracker;
}

/**
 * Answers VS Code's calls; `lmLoader.ts` owns the registration and the change event (the catalog,
 * the key and the settings), so none of this loads before VS Code first asks.
 */
export class GatewayChatModelProvider {
  /** Cleared once the host refused a thinking part: reasoning is then left out. */
  private thinkingAccepted = true;
  private keyPrompt: Promise<unknown> | undefined;

  constructor(private readonly deps: LmProviderDeps) {}

  dispose(): void {
    // Nothing to release: the registration and the events belong to the loader.
  }

  async provideLanguageModelChatInformation(
    options: PrepareLanguageModelChatModelOptions,
    token: vscode.CancellationToken,
  ): Promise<LmModelInfo[]> {
    let key = await this.deps.apiKey.get().catch(() => undefined);
    if (!key && !options.silent) {
      // Not silent: the user asked for these models (e.g. "Add Models → Gateway AI" in the
      // Language Models editor), so ask for the key there and then, as a sign-in would.
      await this.askForKey();
      key = await this.deps.apiKey.get().catch(() => undefined);
    }
    if (!key) {
      // VS Code asks silently many times a minute; only an ask the user made is worth a line.
      if (!options.silent)
        this.deps.logger.info("VS Code asked for the gateway's models; no API key is set.");
      return [];
    }
    const catalog = await this.catalogModels(token);
    const settings = this.deps.settings.current;
    return buildModelInfos({
      catalog,
      chatModels: settings.chat.models,
      currentModel: settings.chat.model,
      include: settings.languageModels.include,
    });
  }

  async provideLanguageModelChatResponse(
    model: LmModelInfo,
    messages: readonly LanguageModelChatRequestMessage[],
    options: ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<unknown>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    if (token.isCancellationRequested) return;
    const abort = new AbortController();
    const cancelled = token.onCancellationRequested(() => abort.abort());
    const settings = this.deps.settings.current;
    const request = buildLmRequest({
      model: model.id,
      messages: toOpenAiMessages(messages.map(toLmMessage)),
      settings: {
        reasoningEffort: settings.chat.reasoningEffort,
        provider: settings.chat.provider,
        plugins: settings.chat.plugins,
        promptCaching: settings.chat.promptCaching,
      },
      tools: options.tools,
      toolMode: options.toolMode,
      modelOptions: options.modelOptions,
      modelConfiguration: options.modelConfiguration,
      efforts: modelEfforts(model),
    });
    const reply = new ReplyAssembler();
    const started = Date.now();
    try {
      for await (const delta of this.deps.gateway.client().streamChat(request, { signal: abort.signal })) {
        for (const part of reply.push(delta)) this.report(progress, part);
      }
      for (const part of reply.finish()) this.report(progress, part);
      this.logUsage(model.id, reply, Date.now() - started);
    } catch (error) {
      const failure = toLmFailure(error);
      if (failure.cancelled || token.isCancellationRequested) {
        this.deps.logger.info(`Chat model ${model.id}: request cancelled after ${Date.now() - started} ms`);
        return;
      }
      this.deps.logger.warn(`Chat model ${model.id}: ${failure.message}`);
      throw languageModelError(failure.code, failure.message);
    } finally {
      cancelled.dispose();
    }
  }

  provideTokenCount(_model: LmModelInfo, text: string | LanguageModelChatRequestMessage): Promise<number> {
    return Promise.resolve(
      typeof text === 'string' ? estimateTextTokens(text) : estimateMessageTokens(toLmMessage(text)),
    );
  }

  private report(progress: vscode.Progress<unknown>, part: ReplyPart): void {
    switch (part.kind) {
      case 'text':
        progress.report(new vscode.LanguageModelTextPart(part.value));
        return;
      case 'toolCall':
        progress.report(new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input));
        return;
      case 'thinking': {
        const { ThinkingPart } = newerClasses(vscode);
        if (!ThinkingPart || !this.thinkingAccepted) return;
        try {
          progress.report(new ThinkingPart(part.value));
        } catch (error) {
          // A host that lists the class but refuses the part: reasoning is left out, never mixed into the text.
          this.thinkingAccepted = false;
          this.deps.logger.debug(
            `Reasoning is not shown in this VS Code's chat: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        return;
      }
    }
  }

  private logUsage(model: string, reply: ReplyAssembler, durationMs: number): void {
    const usage = reply.usage;
    const tokens = usage
      ? `${usage.prompt_tokens ?? '?'} prompt + ${usage.completion_tokens ?? '?'} completion tokens`
      : 'no usage reported';
    const cost = typeof usage?.cost === 'number' ? `, cost ${usage.cost}` : '';
    const via = reply.provider ? ` via ${reply.provider}` : '';
    this.deps.logger.info(`Chat model ${model}${via}: ${tokens}${cost} in ${durationMs} ms`);
    this.deps.onUsage?.({ model, usage });
    const costs = this.deps.costs;
    if (usage?.cost !== undefined) costs?.record('vscodeChat', usage.cost);
    else if (costs) {
      // No cost in the stream: the generation record, else tokens × the catalog's price (estimated).
      const estimate = usage
        ? estimateCost(
            { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens },
            this.deps.catalog.peek(model)?.pricing,
          )
        : undefined;
      const lookup = reply.id ? costs.generation(reply.id) : Promise.resolve(undefined);
      void lookup.then((generation) =>
        generation?.totalCost !== undefined
          ? costs.record('vscodeChat', generation.totalCost)
          : costs.record('vscodeChat', estimate, { estimated: true }),
      );
    }
  }

  /**
   * The gateway's catalog from the shared catalog service, or undefined when the gateway has none
   * (the service then lists the configured models, which the caller offers itself). A cancelled
   * call does not wait for the catalog.
   */
  private async catalogModels(token: vscode.CancellationToken) {
    const { catalog } = this.deps;
    const models = await new Promise<Awaited<ReturnType<ModelCatalog['models']>> | undefined>((resolve) => {
      const stop = token.onCancellationRequested(() => resolve(undefined));
      void catalog.models().then(
        (list) => {
          stop.dispose();
          resolve(list);
        },
        () => {
          stop.dispose();
          resolve(undefined);
        },
      );
    });
    return models && catalog.source !== 'settings' ? models : undefined;
  }

  /** One key prompt at a time, however often VS Code asks while it is open. */
  private askForKey(): Promise<unknown> {
    this.keyPrompt ??= Promise.resolve(vscode.commands.executeCommand(Command.setApiKey)).finally(() => {
      this.keyPrompt = undefined;
    });
    return this.keyPrompt;
  }
}

function languageModelError(code: string, message: string): vscode.LanguageModelError {
  switch (code) {
    case 'NoPermissions':
      return vscode.LanguageModelError.NoPermissions(message);
    case 'Blocked':
      return vscode.LanguageModelError.Blocked(message);
    case 'NotFound':
      return vscode.LanguageModelError.NotFound(message);
    default:
      return new vscode.LanguageModelError(message);
  }
}
