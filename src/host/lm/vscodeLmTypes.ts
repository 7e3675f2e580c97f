/**
 * The parts of VS Code's language-model provider API (finalized in 1.104) that this extension
 * uses, declared structurally: `@types/vscode` stays at 1.100 with `engines.vscode`, and at run
 * time every newer member is looked up on the `vscode` object before use.
 */
import type * as vscode from 'vscode';

export interface LanguageModelChatInformation {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly version: string;
  readonly tooltip?: string;
  readonly detail?: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly capabilities: { readonly imageInput?: boolean; readonly toolCalling?: boolean | number };
  /** A JSON schema of the model's options, shown in VS Code's model picker (1.139+). */
  readonly configurationSchema?: object;
}

export interface PrepareLanguageModelChatModelOptions {
  readonly silent: boolean;
}

export interface ProvideLanguageModelChatResponseOptions {
  readonly modelOptions?: { readonly [name: string]: unknown };
  /** The model's configuration chosen in VS Code's model picker (1.139+; see `configurationSchema`). */
  readonly modelConfiguration?: unknown;
  readonly tools?: readonly vscode.LanguageModelChatTool[];
  readonly toolMode: vscode.LanguageModelChatToolMode;
}

export interface LanguageModelChatRequestMessage {
  readonly role: vscode.LanguageModelChatMessageRole;
  readonly content: ReadonlyArray<unknown>;
  readonly name: string | undefined;
}

export interface LanguageModelChatProvider<
  T extends LanguageModelChatInformation = LanguageModelChatInformation,
> {
  readonly onDidChangeLanguageModelChatInformation?: vscode.Event<void>;
  provideLanguageModelChatInformation(
    options: PrepareLanguageModelChatModelOptions,
    token: vscode.CancellationToken,
  ): vscode.ProviderResult<T[]>;
  provideLanguageModelChatResponse(
    model: T,
    messages: readonly LanguageModelChatRequestMessage[],
    options: ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<unknown>,
    token: vscode.CancellationToken,
  ): Thenable<void>;
  provideTokenCount(
    model: T,
    text: string | LanguageModelChatRequestMessage,
    token: vscode.CancellationToken,
  ): Thenable<number>;
}

/** `vscode.lm` from 1.104 on. */
export interface LanguageModelProviderApi {
  registerLanguageModelChatProvider(vendor: string, provider: LanguageModelChatProvider): vscode.Disposable;
}

/** `new vscode.LanguageModelDataPart(data, mimeType)` (1.104+). */
export interface LanguageModelDataPartLike {
  readonly mimeType: string;
  readonly data: Uint8Array;
}
export type LanguageModelDataPartClass = new (
  data: Uint8Array,
  mimeType: string,
) => LanguageModelDataPartLike;

/** `new vscode.LanguageModelThinkingPart(value)`: proposed, so only used where the host has it. */
export type LanguageModelThinkingPartClass = new (value: string | string[], id?: string) => object;

/** Newer classes on the `vscode` object, or undefined where this VS Code lacks them. */
export function newerClasses(api: typeof vscode): {
  DataPart: LanguageModelDataPartClass | undefined;
  ThinkingPart: LanguageModelThinkingPartClass | undefined;
  PromptTsxPart: (new (value: unknown) => { value: unknown }) | undefined;
} {
  const record = api as unknown as Record<string, unknown>;
  const fn = <T>(name: string): T | undefined =>
    typeof record[name] === 'function' ? (record[name] as T) : undefined;
  return {
    DataPart: fn('LanguageModelDataPart'),
    ThinkingPart: fn('LanguageModelThinkingPart'),
    PromptTsxPart: fn('LanguageModelPromptTsxPart'),
  };
}
