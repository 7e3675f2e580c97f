import * as vscode from 'vscode';
import type { FileChange } from '../../core/agent/types';
import { notify } from '../notify';
import { isRelativePath } from '../../core/protocol/agentProtocol';

export type UndoOutcome = { undone: true } | { undone: false; reason: string };

/**
 * Puts back every file a turn changed or created: their text before the turn, or no file for a
 * file it created. Files changed since (by the user or by a later turn) are named and the user
 * is asked first. It goes through a `WorkspaceEdit`, so the editor's undo can take it back too.
 */
export async function undoTurnChanges(changes: readonly FileChange[]): Promise<UndoOutcome> {
  if (!vscode.workspace.isTrusted)
    return {
      undone: false,
      reason: 'This workspace is in Restricted Mode, where the agent changes no files.',
    };
  const folders = vscode.workspace.workspaceFolders ?? [];
  const targets: { change: FileChange; uri: vscode.Uri; now: string | undefined }[] = [];
  for (const change of changes) {
    const folder = folders[change.folder];
    if (!folder || (change.folderUri !== undefined && folder.uri.toString() !== change.folderUri))
      return {
        undone: false,
        reason: `The workspace folder of ${change.path} is not open in this window (it was ${change.folderUri ?? 'another'}).`,
      };
    if (!isRelativePath(change.path))
      return { undone: false, reason: `${change.path} is not a path inside the workspace.` };
    const uri = vscode.Uri.joinPath(folder.uri, ...change.path.split('/'));
    if (!uri.path.startsWith(`${folder.uri.path.replace(/\/$/, '')}/`))
      return { undone: false, reason: `${change.path} is not a path inside the workspace.` };
    targets.push({ change, uri, now: await currentText(uri) });
  }
  const changedSince = targets.filter((t) => t.now !== t.change.after).map((t) => t.change.path);
  if (changedSince.length) {
    const answer = await notify.ask(
      `Gateway AI: ${changedSince.length === 1 ? 'this file has' : 'these files have'} changed since the turn: ${changedSince.join(', ')}. Undo the turn anyway? Those later changes to ${changedSince.length === 1 ? 'it' : 'them'} are lost too.`,
      'Undo Anyway',
    );
    if (answer !== 'Undo Anyway') return { undone: false, reason: 'Cancelled.' };
  }
  const edit = new vscode.WorkspaceEdit();
  for (const { change, uri, now } of targets) {
    if (change.before === null) {
      if (now !== undefined) edit.deleteFile(uri, { ignoreIfNotExists: true });
    } else if (now === undefined) {
      edit.createFile(uri, { overwrite: false, ignoreIfExists: true });
      edit.insert(uri, new vscode.Position(0, 0), change.before);
    } else {
      const doc = await vscode.workspace.openTextDocument(uri);
      edit.replace(
        uri,
        new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)),
        change.before,
      );
    }
  }
  if (!(await vscode.workspace.applyEdit(edit)))
    return { undone: false, reason: 'VS Code did not apply the edit (a file may be read-only).' };
  for (const { change, uri } of targets) {
    if (change.before === null) continue;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc?.isDirty) await doc.save();
  }
  return { undone: true };
}

/** The file's text as the editor has it (unsaved changes included), or undefined when there is none. */
async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}
