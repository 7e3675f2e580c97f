/**
 * Where a document is, as far as inline completions care: the workspace folders that contain its
 * path (innermost first, with the path relative to each), so that a file is sent only from inside
 * one and exclude patterns see it from every folder it is in. Paths are URI paths (`/` separators).
 */

export interface Placement {
  folder: string;
  /** The path under `folder`, no leading `/`. */
  relative: string;
}

function withSlash(path: string): string {
  return path.endsWith('/') ? path : `${path}/`;
}

/** The folders containing `path`, innermost first; none: it is outside the workspace. */
export function placements(path: string, folders: readonly string[], ignoreCase: boolean): Placement[] {
  const fold = (text: string): string => (ignoreCase ? text.toLowerCase() : text);
  const subject = fold(path);
  return folders
    .filter((folder) => folder !== '' && subject.startsWith(fold(withSlash(folder))))
    .sort((a, b) => withSlash(b).length - withSlash(a).length)
    .map((folder) => ({ folder, relative: path.slice(withSlash(folder).length) }));
}

/**
 * Whether an untitled document's path names a file (`untitled:/home/me/.env`, `untitled:c:/x/.env`)
 * rather than being a bare title (`Untitled-1`): then it is checked as that file would be.
 */
export function untitledFilePath(path: string): boolean {
  return /^\/|^[a-zA-Z]:[\\/]/.test(path) || path.includes('/') || path.includes('\\');
}
