// The demo's launcher: `npm run demo` loads the extension through this file, so VS Code opens
// straight into the Gateway AI view with TRY-ME.md in the editor. It lives in a folder the demo
// writes (.test-work/demo/launcher) holding the extension's manifest plus a start-up activation,
// and copies of `dist` and `media` (copies, not links: VS Code gives an extension its API by
// where its files are). The extension itself is unchanged: required and activated as it is.
const vscode = require('vscode');

const extension = require('./dist/extension.js');

exports.activate = (context) => {
  const api = extension.activate(context);
  setTimeout(() => void openDemo(), 0);
  return api;
};

exports.deactivate = () => extension.deactivate?.();

async function openDemo() {
  try {
    await vscode.commands.executeCommand('workbench.view.extension.gateway');
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) return;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, 'TRY-ME.md'));
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
  } catch (error) {
    console.error('Gateway AI demo: could not open the view and TRY-ME.md', error);
  }
}
