import * as vscode from 'vscode';
import type { StoreFiles } from '../../core/storage/storeFiles';

export interface StorageFolder extends StoreFiles {
  readonly uri: vscode.Uri;
  fileUri(name: string): vscode.Uri;
}

let tmpCounter = 0;
/** Tells this extension host's half-written files from another window's (random per host). */
const TMP_PREFIX = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);

/**
 * A folder of the extension's storage, through vscode.workspace.fs (works for remote hosts too).
 * Writes are atomic: the text goes to a temporary file in the same folder, which is then renamed
 * over the target, so a crash or a second window reading at the same moment never sees half a file.
 */
export function storageFolder(base: vscode.Uri, name: string): StorageFolder {
  const folder = vscode.Uri.joinPath(base, name);
  let created: Thenable<void> | undefined;
  const ensure = () => (created ??= vscode.workspace.fs.createDirectory(folder));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const at = (file: string) => vscode.Uri.joinPath(folder, file);
  return {
    uri: folder,
    fileUri: at,
    async read(file) {
      try {
        return decoder.decode(await vscode.workspace.fs.readFile(at(file)));
      } catch (error) {
        if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return undefined;
        throw error;
      }
    },
    async write(file, text) {
      await writeAtomically(at(file), encoder.encode(text), ensure);
    },
    async delete(file) {
      await vscode.workspace.fs.delete(at(file), { useTrash: false });
    },
    async rename(from, to) {
      await vscode.workspace.fs.rename(at(from), at(to), { overwrite: false });
    },
    async list() {
      try {
        return (await vscode.workspace.fs.readDirectory(folder))
          .filter(([, type]) => type === vscode.FileType.File)
          .map(([file]) => file);
      } catch (error) {
        if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return [];
        throw error;
      }
    },
  };
}

/** Writes `bytes` to a temporary sibling of `target`, then renames it over `target`. */
export async function writeAtomically(
  target: vscode.Uri,
  bytes: Uint8Array,
  ensureFolder?: () => Thenable<void>,
): Promise<void> {
  if (ensureFolder) await ensureFolder();
  const name = target.path.slice(target.path.lastIndexOf('/') + 1);
  const tmp = vscode.Uri.joinPath(
    target,
    '..',
    `${name}.tmp-${TMP_PREFIX}-${Date.now().toString(36)}-${(tmpCounter++).toString(36)}`,
  );
  await vscode.workspace.fs.writeFile(tmp, bytes);
  try {
    await vscode.workspace.fs.rename(tmp, target, { overwrite: true });
  } catch (error) {
    await vscode.workspace.fs.delete(tmp, { useTrash: false }).then(undefined, () => undefined);
    throw error;
  }
}

/** Whether anything (a file, a folder, a link) is at `uri`. */
export async function fileExists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
