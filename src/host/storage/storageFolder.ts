import * as vscode from 'vscode';
import type { ConversationFiles } from '../../core/chat/conversationStore';

/** A folder of the extension's storage, through vscode.workspace.fs (works for remote hosts too). */
export function storageFolder(base: vscode.Uri, name: string): ConversationFiles {
  const folder = vscode.Uri.joinPath(base, name);
  let created: Thenable<void> | undefined;
  const ensure = () => (created ??= vscode.workspace.fs.createDirectory(folder));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return {
    async read(file) {
      try {
        return decoder.decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, file)));
      } catch (error) {
        if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return undefined;
        throw error;
      }
    },
    async write(file, text) {
      await ensure();
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, file), encoder.encode(text));
    },
    async delete(file) {
      await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, file), { useTrash: false });
    },
  };
}
