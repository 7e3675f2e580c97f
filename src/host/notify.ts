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
  /**
   * A modal question with one action, for consent to something that runs: `detail` is shown as
   * plain text with its line breaks (a modal dialog renders no Markdown), redacted but not cut,
   * so a command line is shown whole.
   */
  async confirm(message: string, detail: string, action: string): Promise<boolean> {
    const answer = await vscode.window.showWarningMessage(
      shown(message),
      { modal: true, detail: redact(detail) },
      action,
    );
    return answer === action;
  },
  /**
   * `confirm` with `detail` shown exactly as given, not redacted: for consent to a launch whose
   * every written value the user must see (an MCP server a workspace names). The caller keeps
   * values from the user's own environment out of it.
   */
  async confirmVerbatim(message: string, detail: string, action: string): Promise<boolean> {
    const answer = await vscode.window.showWarningMessage(shown(message), { modal: true, detail }, action);
    return answer === action;
  },
  /** A modal question with several actions and a plain-text `detail` (a list of files…). */
  choose<T extends string>(message: string, detail: string, ...actions: T[]): Thenable<T | undefined> {
    return vscode.window.showWarningMessage(
      shown(message),
      { modal: true, detail: redact(detail) },
      ...actions,
    );
  },
};

function shown(message: string): string {
  return inertText(redact(message));
}
