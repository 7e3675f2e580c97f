/**
 * What the extension showed or sent while the integration suite ran, recorded from before the
 * first test (see observeRun.ts) so that the last file (secretsSweep.ts) can check the
 * whole run, including text that later tests cleared away (finished media jobs, closed views).
 */

export interface PostedMessage {
  /** Which webview it went to: "chat view" or a panel's view type. */
  target: string;
  /** The message as JSON, taken when it was posted: the objects it came from change afterwards. */
  json: string;
}

export interface ShownNotification {
  severity: 'error' | 'warning' | 'information';
  message: string;
  items: string[];
}

export const observed = {
  /** Set once the hooks are in place. */
  started: false,
  /** Whether the chat view had already been resolved when observation began (its first messages would be missed). */
  chatViewResolvedEarly: false,
  /** Whether `vscode.window` took the wrappers that observe notifications and webview panels. */
  windowObservable: false,
  /** Every message any of the extension's webviews was sent. */
  webviewMessages: [] as PostedMessage[],
  /** The chat view's page, each time it was built. */
  webviewPages: [] as string[],
  /** How many messages had been posted (`webviewMessages.length`) when the chat view was last built. */
  chatViewBuiltAt: 0,
  notifications: [] as ShownNotification[],
  /** The error text of every chat reply that ended in an error. */
  turnErrors: [] as string[],
  /** Every `error` and `lastProblem` a media job carried at any point. */
  mediaJobTexts: new Set<string>(),
};
