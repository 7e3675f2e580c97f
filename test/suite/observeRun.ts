/**
 * Starts recording what the extension shows and sends, before any test runs, for the secrets
 * sweep (secretsSweep.ts). The hooks here sit outside any `describe`, so mocha attaches them to
 * the root suite: they run once around the whole run, whatever file a test is in. The suite's
 * index adds this file first, so its `before` is the first root hook.
 *
 * Everything is observed from the outside, by wrapping objects the tests share with the extension
 * (its exported internals and the `vscode` API object, which the extension host hands to every
 * module under the extension's folder, tests included). Nothing is added to the product for it.
 */
import * as vscode from 'vscode';
import { gatewayApi } from './helpers';
import { observed } from './observed';
import type { ShownNotification } from './observed';

const restore: Array<() => void> = [];

/** Replaces `target[name]` with `wrapper(original)` until the run ends. */
function wrap<T extends object>(
  target: T,
  name: string,
  wrapper: (original: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown,
): void {
  const record = target as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = record[name];
  record[name] = wrapper(original);
  restore.push(() => {
    record[name] = original;
  });
}

/** Records each message posted to `webview`, as it is at that moment. */
function observeWebview(webview: vscode.Webview, target: string): void {
  wrap(
    webview,
    'postMessage',
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        observed.webviewMessages.push({ target, json: JSON.stringify(args[0]) ?? 'undefined' });
        return original.apply(this, args);
      },
  );
}

function itemTitles(items: unknown[]): string[] {
  return items.flatMap((item) =>
    typeof item === 'string'
      ? [item]
      : item && typeof item === 'object' && 'title' in item
        ? [String(item.title)]
        : [],
  );
}

before(async function () {
  const api = await gatewayApi();

  const view = api.chatView.webviewView;
  if (view) {
    // Too late for what it was sent so far; the secrets check reports it.
    observed.chatViewResolvedEarly = true;
    observeWebview(view.webview, 'chat view');
  }
  const resolved = api.chatView.onDidResolve((resolvedView) => {
    // The provider fires this right after it built the page and before the page can ask for
    // anything, so no message to it goes unseen.
    observed.webviewPages.push(resolvedView.webview.html);
    observed.chatViewBuiltAt = observed.webviewMessages.length;
    observeWebview(resolvedView.webview, 'chat view');
  });
  restore.push(() => {
    resolved.dispose();
  });

  try {
    // Panels (the media preview) are created through the same API object as the extension uses.
    wrap(
      vscode.window,
      'createWebviewPanel',
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const panel = original.apply(this, args) as vscode.WebviewPanel;
          observeWebview(panel.webview, panel.viewType);
          return panel;
        },
    );
    const severities: Array<[string, ShownNotification['severity']]> = [
      ['showErrorMessage', 'error'],
      ['showWarningMessage', 'warning'],
      ['showInformationMessage', 'information'],
    ];
    for (const [name, severity] of severities) {
      wrap(
        vscode.window,
        name,
        (original) =>
          function (this: unknown, ...args: unknown[]) {
            observed.notifications.push({
              severity,
              message: String(args[0]),
              items: itemTitles(args.slice(1)),
            });
            return original.apply(this, args);
          },
      );
    }
    observed.windowObservable = true;
  } catch {
    // A frozen API object: the secrets check then says that panels and notifications went unchecked.
  }

  const finished = api.chat.onDidFinishTurn((turn) => {
    if (turn.error) observed.turnErrors.push(turn.error.message);
  });
  restore.push(() => {
    finished.dispose();
  });

  const media = api.media.model.onDidChange(() => {
    for (const job of api.media.model.all()) {
      if (job.error) observed.mediaJobTexts.add(job.error);
      if (job.lastProblem) observed.mediaJobTexts.add(job.lastProblem);
    }
  });
  restore.push(() => media.dispose());

  observed.started = true;
});

after(function () {
  for (const undo of restore.splice(0).reverse()) undo();
});
