/**
 * Activation in every VS Code the extension supports: with the language-model provider API
 * (1.104+) the gateway's models are registered; without it (1.100) the extension works as before.
 * Either way, nothing is logged as an error. Runs first after the observers (test/suite/index.ts adds it there), before any test makes
 * the extension log failures on purpose.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, extensionLog, gatewayApi, logShows } from './helpers';

const hasProviderApi =
  typeof (vscode.lm as unknown as Record<string, unknown>).registerLanguageModelChatProvider === 'function';

/** VS Code's own log of this extension host (remote: remoteexthost.log; desktop: exthost.log). */
async function extensionHostLog(logUri: vscode.Uri): Promise<{ name: string; text: string }> {
  const folder = vscode.Uri.joinPath(logUri, '..');
  const entries = await vscode.workspace.fs.readDirectory(folder);
  const name = entries.map(([n]) => n).find((n) => /exthost\.log$/i.test(n));
  assert.ok(name, `VS Code's extension host log is in ${folder.fsPath}`);
  return {
    name,
    text: new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, name))),
  };
}

describe(`Activation in VS Code ${vscode.version}`, () => {
  it(`activates ${hasProviderApi ? 'and registers its language models' : 'without the language-model provider API'}, with no errors logged`, async () => {
    const api = await gatewayApi();
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
    // The consumer side exists in both versions; with no key it finds no gateway model, and does not throw.
    assert.deepEqual(await vscode.lm.selectChatModels({ vendor: 'gateway' }), []);
    if (!hasProviderApi) {
      await logShows(
        /no language-model provider API: gateway models are not offered/,
        'the note that VS Code has no provider API',
      );
    }
    // The rest of the extension works: a command runs and the status bar item exists.
    await vscode.commands.executeCommand('gateway.newChat');
    assert.equal(api.status.usageTotal.requests, 0);

    const ownLog = await extensionLog();
    assert.deepEqual(
      ownLog.split('\n').filter((line) => /\[error\]/.test(line)),
      [],
      "errors in the extension's log",
    );
    const hostLog = await extensionHostLog(api.context.logUri);
    const ours = hostLog.text
      .split('\n')
      .filter((line) => /\[error\]/.test(line) && /gateway-ai|gateway ai/i.test(line));
    assert.deepEqual(ours, [], `errors about the extension in ${hostLog.name}`);
    assert.match(
      hostLog.text,
      new RegExp(`${EXTENSION_ID.replace('.', '\\.')}`),
      `${hostLog.name} records the extension's activation`,
    );
  });
});
