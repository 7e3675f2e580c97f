/**
 * Names and paths for results saved into the workspace, and the text that refers to one from a
 * document. Pure: paths are POSIX paths (as in `Uri.path`), computed without `node:path`.
 */

const MAX_SLUG = 48;

/** A file-name-safe slug of the prompt: "A red square!" → "a-red-square". */
export function slugFromPrompt(prompt: string): string {
  const slug = prompt
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/g, '');
  if (!slug) return 'media';
  // "nul.png" or "con.png" is a device on Windows, whatever the extension: never a file.
  return isReservedWindowsName(slug) ? `${slug}-media` : slug;
}

/** Names Windows keeps for devices (`CON`, `nul.txt`, `com1.tar.gz`, `aux .`), in any case. */
export function isReservedWindowsName(name: string): boolean {
  const base = name.split('.')[0].replace(/[ .]+$/, '');
  return /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])$/i.test(base);
}

/**
 * The names to try, in order, for a result: `a-red-square.png`, `a-red-square-2.png`, … The
 * saver takes the first that does not exist yet, so nothing is ever overwritten.
 */
export function* candidateNames(prompt: string, extension: string, suffix = ''): Generator<string> {
  const base = slugFromPrompt(prompt) + (suffix ? `-${suffix}` : '');
  const ext = extension.replace(/[^a-z0-9]/gi, '').toLowerCase() || 'bin';
  yield `${base}.${ext}`;
  for (let n = 2; ; n++) yield `${base}-${n}.${ext}`;
}

/**
 * A workspace-relative folder from settings, cleaned: forward slashes, no leading slash, no `.`
 * or `..` segments (a setting must not point outside the workspace), and no folder named like a
 * Windows device (`aux` becomes `_aux`). Empty means the root. Symbolic links on the way are
 * refused when saving (see `symlinkOnTheWay`).
 */
export function cleanRelativeFolder(value: string): string {
  return value
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..')
    .map((segment) => (isReservedWindowsName(segment) ? `_${segment}` : segment))
    .join('/');
}

export type PathKind = 'folder' | 'file' | 'symlink' | 'missing';

/**
 * The first folder on the way from the workspace root down to `relativeFolder` (cleaned) that is
 * a symbolic link, or undefined. A link there would take the results wherever it points, outside
 * the workspace included, so saving refuses it. `kindOf` looks at one workspace-relative path
 * without following a link at its end (lstat); the walk stops at the first missing folder, as
 * the folders from there on are made by the save.
 */
export async function symlinkOnTheWay(
  relativeFolder: string,
  kindOf: (relativePath: string) => Promise<PathKind>,
): Promise<string | undefined> {
  const segments = relativeFolder.split('/').filter(Boolean);
  for (let i = 1; i <= segments.length; i++) {
    const path = segments.slice(0, i).join('/');
    const kind = await kindOf(path);
    if (kind === 'symlink') return path;
    if (kind === 'missing') return undefined;
  }
  return undefined;
}

/** `to` relative to the folder `fromDir`, both absolute POSIX paths. */
export function relativePosix(fromDir: string, to: string): string {
  const from = fromDir.split('/').filter(Boolean);
  const target = to.split('/').filter(Boolean);
  let common = 0;
  while (common < from.length && common < target.length - 1 && from[common] === target[common]) common++;
  const up = from.slice(common).map(() => '..');
  return [...up, ...target.slice(common)].join('/');
}

export type ResultKind = 'image' | 'video' | 'audio' | 'text' | 'file';

/** How a document refers to a saved result, by its language. */
export function insertionText(options: {
  languageId: string;
  /** The result's path relative to the document's folder. */
  relativePath: string;
  kind: ResultKind;
  prompt: string;
}): string {
  const { languageId, relativePath, kind, prompt } = options;
  if (languageId !== 'markdown' && languageId !== 'mdx') return relativePath;
  const alt = markdownLabel(prompt);
  const target = markdownTarget(relativePath);
  return kind === 'image' ? `![${alt}](${target})` : `[${alt}](${target})`;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Link text that cannot end the label early, break the line, or run: braces are escaped too, as
 * MDX evaluates `{…}` in text. Shortened by whole characters as a reader sees them, so no emoji
 * or flag is cut in half.
 */
function markdownLabel(prompt: string): string {
  const flat = Array.from(graphemes.segment(prompt.replace(/\s+/g, ' ').trim()), (part) => part.segment);
  const short = flat.length > 60 ? `${flat.slice(0, 59).join('')}…` : flat.join('');
  return short.replace(/[[\]\\`*_<>{}]/g, (c) => `\\${c}`) || 'media';
}

/** A link target: spaces, parentheses and other unsafe characters percent-encoded per segment. */
function markdownTarget(path: string): string {
  return path
    .split('/')
    .map((segment) =>
      segment === '..' || segment === '.'
        ? segment
        : encodeURIComponent(segment).replace(
            /[()]/g,
            (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
          ),
    )
    .join('/');
}
