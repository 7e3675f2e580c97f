import * as vscode from 'vscode';
import { redact } from '../api/redact';
import { inertText } from '../core/util/text';

/**
 * The only way the extension shows a notification. Every message passes through `redact` (keys,
 * and credentials in any URL, e.g. a proxy's `user:password@`) and `inertText`: notifications
 * render `[label](target)` as links, and a message may carry text from the gateway or a model (a
 * failure reason, an error body). Only the action buttons we pass are clickable.
 */
export const notify = {
  info<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showInformationMessage(shown(message), ...actions);
  },
  warn<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showWarningMessage(shown(message), ...actions);
  },
  error<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showErrorMessage(shown(message), ...actions);
  },
  /** A question the user must answer before anything goes on (a dialog). */
  ask<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showWarningMessage(shown(message), { modal: true }, ...actions);
  },
};

function shown(message: string): string {
  return inertText(redact(message));
}
