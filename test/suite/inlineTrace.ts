/**
 * What happened around an inline suggestion, for a test that waited in vain: each call VS Code
 * made to the provider and how it ended, and the window events that make VS Code drop ghost text
 * (the editor losing focus to another editor, a terminal or another window; selections set from
 * outside the keyboard). A failure message carries the lines since its test began.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { InlineCompletionsFeature } from '../../src/host/inline/inlineFeature';
import { waitFor } from './helpers';

export class InlineTrace implements vscode.Disposable {
  private readonly lines: string[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private started = Date.now();
  private restore: (() => void) | undefined;

  constructor() {
    const name = (editor: vscode.TextEditor | undefined): string =>
      editor ? path.basename(editor.document.uri.path) : 'none';
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => this.add(`active editor: ${name(editor)}`)),
      vscode.window.onDidChangeWindowState((state) => this.add(`window focused: ${state.focused}`)),
      vscode.window.onDidChangeActiveTerminal((terminal) =>
        this.add(`active terminal: ${terminal?.name ?? 'none'}`),
      ),
      vscode.window.onDidOpenTerminal((terminal) => this.add(`terminal opened: ${terminal.name}`)),
      vscode.window.onDidChangeTextEditorSelection((event) =>
        this.add(
          `selection in ${name(event.textEditor)}: ${event.selections.map((s) => `${s.active.line}:${s.active.character}`).join(',')} (kind ${event.kind ?? 'none'})`,
        ),
      ),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0)
          this.add(`edit in ${path.basename(event.document.uri.path)} v${event.document.version}`);
      }),
    );
  }

  /** Records each call VS Code makes to the feature's provider, and its outcome. */
  watch(feature: InlineCompletionsFeature): void {
    this.restore?.();
    const original = feature.provideInlineCompletionItems.bind(feature);
    feature.provideInlineCompletionItems = async (document, position, context, token) => {
      const call = `provider asked (${context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke ? 'explicit' : 'automatic'}) at ${position.line}:${position.character} v${document.version} of ${path.basename(document.uri.path)}`;
      this.add(call);
      const items = await original(document, position, context, token);
      const outcome = token.isCancellationRequested
        ? 'cancelled'
        : items?.length
          ? `gave ${JSON.stringify(typeof items[0].insertText === 'string' ? items[0].insertText : items[0].insertText.value)}`
          : `gave nothing (last refusal: ${feature.lastRefusal ?? 'none'})`;
      this.add(`${call}: ${outcome}`);
      return items;
    };
    this.restore = () => {
      delete (feature as Partial<InlineCompletionsFeature>).provideInlineCompletionItems;
    };
  }

  /** Starts a new test's lines. */
  reset(): void {
    this.lines.length = 0;
    this.started = Date.now();
  }

  add(line: string): void {
    if (this.lines.length < 200) this.lines.push(`+${Date.now() - this.started} ms ${line}`);
  }

  /** The lines so far, for a failure message. */
  text(): string {
    return this.lines.length
      ? `\n  what happened:\n    ${this.lines.join('\n    ')}`
      : '\n  (nothing happened)';
  }

  /**
   * What the window itself shows and where its focus went (the runner answers from the page, in
   * test/launch/runServerTests.ts), or why that cannot be told. Waits at most 5 s.
   */
  async probe(): Promise<string> {
    const sync = process.env.GATEWAY_TEST_SYNC_DIR;
    if (!sync) return 'no window probe (not run by the server runner)';
    const id = `p${Date.now()}`;
    const file = path.join(sync, `probe-${id}.txt`);
    console.log(`[probe] ${id}`);
    try {
      await waitFor(() => existsSync(file), 'the window probe', 5000);
      return readFileSync(file, 'utf8');
    } catch {
      return 'the window probe did not answer';
    }
  }

  dispose(): void {
    this.restore?.();
    for (const disposable of this.disposables) disposable.dispose();
  }
}
