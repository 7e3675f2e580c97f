import * as vscode from 'vscode';
import { inertText } from '../core/util/text';

/**
 * The only way the extension shows a notification. Every message passes through `inertText`:
 * notifications render `[label](target)` as links, and a message may carry text from the
 * gateway or a model (a failure reason, an error body). Only the action buttons we pass are
 * clickable.
 */
export const notify = {
  info<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showInformationMessage(inertText(message), ...actions);
  },
  warn<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showWarningMessage(inertText(message), ...actions);
  },
  error<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showErrorMessage(inertText(message), ...actions);
  },
};
