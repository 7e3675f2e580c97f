import * as vscode from 'vscode';
import type { Attachment } from '../../core/chat/attachments';
import { binarySizeProblem, IMAGE_MIME_TYPES } from '../../core/chat/attachments';
import { notify } from '../notify';
import type { AttachmentTray } from './attachments';
import {
  fileAttachment,
  imageTypeOf,
  isPdfUri,
  problemsAttachment,
  selectionAttachment,
} from './attachments';

export interface AttachmentCommandDeps {
  tray: AttachmentTray;
  /** Shows the chat (the chips are above its composer). */
  reveal: () => Thenable<void> | Promise<void>;
  /** Whether the current model takes images, and a sentence saying why not. */
  imagesAllowed: () => Promise<{ ok: true } | { ok: false; reason: string }>;
}

function asUris(value: unknown): vscode.Uri[] {
  if (value instanceof vscode.Uri) return [value];
  if (Array.isArray(value)) return value.filter((v): v is vscode.Uri => v instanceof vscode.Uri);
  return [];
}

async function added(deps: AttachmentCommandDeps, attachments: Attachment[]): Promise<number> {
  deps.tray.add(...attachments);
  if (attachments.length) await deps.reveal();
  return attachments.length;
}

/** `gateway.addSelectionToChat`: the selection, with file, language and line range. */
export async function addSelection(deps: AttachmentCommandDeps): Promise<number> {
  const editor = vscode.window.activeTextEditor;
  const attachment = editor && selectionAttachment(editor);
  if (!attachment) {
    void notify.info('Gateway AI: select some text first, then run Add Selection to Chat.');
    return 0;
  }
  return added(deps, [attachment]);
}

/**
 * `gateway.addFileToChat [uri | uri[]]`: the files given (the Explorer passes the clicked one
 * and the selection), else a picker. Images among them are attached as images.
 */
export async function addFiles(
  deps: AttachmentCommandDeps,
  arg?: unknown,
  selection?: unknown,
): Promise<number> {
  let uris = asUris(selection).length ? asUris(selection) : asUris(arg);
  if (uris.length === 0) {
    const active = vscode.window.activeTextEditor?.document.uri;
    uris =
      (await vscode.window.showOpenDialog({
        title: 'Add Files to Chat',
        openLabel: 'Add to Chat',
        canSelectMany: true,
        defaultUri: active ?? vscode.workspace.workspaceFolders?.[0]?.uri,
      })) ?? [];
  }
  return attachUris(deps, uris);
}

/** Attaches files and images; each refusal says why, the others still go in. */
export async function attachUris(deps: AttachmentCommandDeps, uris: readonly vscode.Uri[]): Promise<number> {
  const attachments: Attachment[] = [];
  const problems: string[] = [];
  for (const uri of uris) {
    try {
      const mime = imageTypeOf(uri);
      if (mime) attachments.push(await imageFromUri(deps, uri, mime));
      else if (isPdfUri(uri)) {
        const name = uri.path.split('/').pop() ?? 'document.pdf';
        attachments.push(await deps.tray.storePdf(name, await readWithin(uri, 'pdf', name)));
      } else attachments.push(await fileAttachment(uri));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (problems.length) void notify.warn(`Gateway AI: ${problems.join(' ')}`);
  return added(deps, attachments);
}

async function imageFromUri(deps: AttachmentCommandDeps, uri: vscode.Uri, mime: string): Promise<Attachment> {
  const allowed = await deps.imagesAllowed();
  if (!allowed.ok) throw new Error(allowed.reason);
  const name = uri.path.split('/').pop() ?? 'image';
  return deps.tray.storeImage(name, mime, await readWithin(uri, 'image', name));
}

/** A file's bytes, after its size says it can be attached: a huge file is never read into memory. */
async function readWithin(uri: vscode.Uri, kind: 'image' | 'pdf', name: string): Promise<Uint8Array> {
  const tooLarge = binarySizeProblem(kind, name, (await vscode.workspace.fs.stat(uri)).size);
  if (tooLarge) throw new Error(tooLarge);
  return vscode.workspace.fs.readFile(uri);
}

/** `gateway.addImageToChat [uri]`: a PNG, JPEG, WebP or GIF image, given or picked. */
export async function addImage(deps: AttachmentCommandDeps, arg?: unknown): Promise<number> {
  const allowed = await deps.imagesAllowed();
  if (!allowed.ok) {
    void notify.warn(`Gateway AI: ${allowed.reason}`);
    return 0;
  }
  let uris = asUris(arg);
  if (uris.length === 0) {
    uris =
      (await vscode.window.showOpenDialog({
        title: 'Add Image to Chat',
        openLabel: 'Add to Chat',
        canSelectMany: true,
        filters: { Images: ['png', 'jpg', 'jpeg', 'webp', 'gif'] },
      })) ?? [];
  }
  const notImages = uris.filter((u) => !imageTypeOf(u));
  if (notImages.length) {
    void notify.warn(
      `Gateway AI: only ${IMAGE_MIME_TYPES.map((m) => m.slice(6).toUpperCase()).join(', ')} images can be attached.`,
    );
  }
  return attachUris(
    deps,
    uris.filter((u) => imageTypeOf(u)),
  );
}

/**
 * `gateway.addProblemsToChat [uri | 'workspace']`: the Problems of the file given, of the active
 * file, or of the workspace.
 */
export async function addProblems(deps: AttachmentCommandDeps, arg?: unknown): Promise<number> {
  const uri =
    arg === 'workspace' ? undefined : (asUris(arg)[0] ?? vscode.window.activeTextEditor?.document.uri);
  const attachment =
    problemsAttachment(uri) ?? (uri && arg === undefined ? problemsAttachment(undefined) : undefined);
  if (!attachment) {
    void notify.info(`Gateway AI: there are no problems in ${uri ? 'this file' : 'the workspace'} to add.`);
    return 0;
  }
  return added(deps, [attachment]);
}
