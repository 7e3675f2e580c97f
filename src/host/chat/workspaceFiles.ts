import * as vscode from 'vscode';
import { MAX_SUGGESTIONS, rankFiles } from '../../core/chat/fileMention';
import type { FileSuggestion } from '../../core/chat/fileMention';

/** Most files listed for mentions; a larger workspace is searched by what it finds first. */
const MAX_LISTED = 5000;
/** How long one listing serves the keystrokes of a mention. */
const LIST_TTL_MS = 10_000;
const EXCLUDE = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**}';

/**
 * The workspace files a `#file:` mention offers: one listing (files.exclude applies, and the
 * usual build folders are left out) reused for a few seconds, ranked by the query.
 */
export class WorkspaceFiles {
  private listing: { at: number; files: Promise<vscode.Uri[]> } | undefined;

  async suggest(query: string): Promise<FileSuggestion[]> {
    const uris = await this.list();
    const byPath = new Map(uris.map((uri) => [vscode.workspace.asRelativePath(uri, true), uri]));
    return rankFiles([...byPath.keys()], query, MAX_SUGGESTIONS).map((path) => ({
      path,
      uri: byPath.get(path)!.toString(),
    }));
  }

  private list(): Promise<vscode.Uri[]> {
    const now = Date.now();
    if (!this.listing || now - this.listing.at > LIST_TTL_MS) {
      const files = Promise.resolve(vscode.workspace.findFiles('**/*', EXCLUDE, MAX_LISTED)).catch(
        () => [] as vscode.Uri[],
      );
      this.listing = { at: now, files };
    }
    return this.listing.files;
  }
}
