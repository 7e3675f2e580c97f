/**
 * The checkpoints' confirmations are modal dialogs: tests answer them as the user would, by the
 * buttons the extension offers, and keep what they listed.
 */
import * as vscode from 'vscode';

export interface Dialog {
  message: string;
  detail: string;
  items: string[];
}

/** Answers the extension's restore dialogs with `answer(dialog)`; every other message is left alone. */
export function answerDialogs(answer: (dialog: Dialog) => string | undefined): {
  shown: Dialog[];
  /** Non-modal warnings shown meanwhile (the "not restored" report), not shown on screen. */
  warned: string[];
  dispose(): void;
} {
  const window = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
  const original = window.showWarningMessage;
  const shown: Dialog[] = [];
  const warned: string[] = [];
  window.showWarningMessage = function (this: unknown, ...args: unknown[]) {
    const message = String(args[0]);
    const options = args[1] as { modal?: boolean; detail?: string } | undefined;
    if (!options?.modal && /^Gateway AI: .* not restored/.test(message)) {
      warned.push(message);
      return Promise.resolve(undefined);
    }
    if (!options?.modal || !/Restore|Redo|No file differs|unsaved/.test(message))
      return original.apply(this, args);
    const dialog = { message, detail: options.detail ?? '', items: args.slice(2).map(String) };
    shown.push(dialog);
    return Promise.resolve(answer(dialog));
  };
  return { shown, warned, dispose: () => (window.showWarningMessage = original) };
}
