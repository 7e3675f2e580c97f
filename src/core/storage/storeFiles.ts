/**
 * The files of one storage folder, as the pure stores see them, and the rules they share: how an
 * id becomes a file name, which ids are acceptable, and how an unreadable file is kept aside.
 * The extension implements `StoreFiles` over vscode.workspace.fs (src/host/storage/storageFolder.ts);
 * unit tests use a temporary folder.
 */
import { sha256Hex } from '../util/sha256';
import type { Clock } from '../util/clock';

export interface StoreFiles {
  /** The file's text, or undefined when there is no such file. */
  read(name: string): Promise<string | undefined>;
  /** Atomic: readers see the old text or the new one, never a mix (a temporary file, then a rename). */
  write(name: string, text: string): Promise<void>;
  delete(name: string): Promise<void>;
  /** Renames without overwriting: fails if `to` exists. */
  rename(from: string, to: string): Promise<void>;
  /** The names of the files in the folder (none when it does not exist yet). */
  list(): Promise<string[]>;
}

/** A stored file that could not be read, and where it was kept. */
export interface KeptFile {
  /** The name it had. */
  name: string;
  /** The name it has now, in the same folder. */
  keptAs: string;
  reason: string;
}

/** What a store built on these files tells its owner (the conversation store, the media jobs file). */
export interface StoreEvents {
  /** Told about stored data that was skipped or repaired, for the log (once per problem). */
  onProblem?: (message: string) => void;
  /** Told when an unreadable file was moved aside. */
  onKept?: (kept: KeptFile) => void;
  /** Told once per burst of failed writes (they are retried). */
  onSaveFailed?: (error: unknown) => void;
  /** Told when writing works again after a failure. */
  onSaveRecovered?: () => void;
  clock?: Clock;
}

const ID_PATTERN = /^[\w.:@+-]{1,200}$/;

/**
 * Ids we make ourselves and accept back (chats): 1 to 200 characters of letters, digits and
 * `_ . : @ + -`. Ids from outside (the gateway's media job ids) can be any string: they are only
 * ever used as file names through `hashName`.
 */
export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && ID_PATTERN.test(id);
}

/** With the `u` flag, a surrogate matches only when it is not half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * One file name per id and one id per file name: the id's SHA-256, in hex (64 characters of
 * `0-9a-f`, a valid name on every file system, never a reserved one). Any string works, the
 * gateway's media job ids included. UTF-8 alone would give a lone surrogate (`"\uD800"`, which
 * JSON can carry) the name of `"\uFFFD"`; such strings are hashed as 0xFF (a byte UTF-8 never
 * uses) followed by their UTF-16 code units, so no two strings share a name, and every name
 * written before stays as it was.
 */
export function hashName(id: string): string {
  if (!LONE_SURROGATE.test(id)) return sha256Hex(id);
  const bytes = new Uint8Array(1 + id.length * 2);
  bytes[0] = 0xff;
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i);
    bytes[1 + i * 2] = unit & 0xff;
    bytes[2 + i * 2] = unit >>> 8;
  }
  return sha256Hex(bytes);
}

/** True for the names of files kept aside or half written (never read as data). */
export function isAsideName(name: string): boolean {
  return /\.corrupt-\d+(-\d+)?\.json$/.test(name) || /\.tmp-[\w-]+$/.test(name);
}

/**
 * The files kept aside (`<base>.corrupt-<time>.json`) among `names` beyond the newest `keep` of
 * those starting with `prefix`: what to delete so set-aside files cannot pile up.
 */
export function asideOverflow(names: readonly string[], prefix: string, keep: number): string[] {
  const time = (name: string): number => Number(/\.corrupt-(\d+)(?:-(\d+))?\.json$/.exec(name)?.[1]);
  return names
    .filter((name) => name.startsWith(prefix) && /\.corrupt-\d+(-\d+)?\.json$/.test(name))
    .sort((a, b) => time(b) - time(a) || b.localeCompare(a))
    .slice(keep);
}

/**
 * Moves an unreadable file aside as `<name>.corrupt-<time>.json` (never over an existing one) and
 * says where. Returns undefined when the file could not be moved either (it is then left in place).
 */
export async function keepAside(
  files: StoreFiles,
  name: string,
  reason: string,
  now: number = Date.now(),
): Promise<KeptFile | undefined> {
  const base = name.replace(/\.json$/, '');
  for (let attempt = 0; attempt < 5; attempt++) {
    const keptAs = `${base}.corrupt-${now}${attempt ? `-${attempt}` : ''}.json`;
    try {
      await files.rename(name, keptAs);
      return { name, keptAs, reason };
    } catch {
      // Taken (or the rename failed): try the next name, then give up leaving the file in place.
    }
  }
  return undefined;
}

/** "Unexpected end of JSON input" and the like, short enough for a log line. */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 199)}…` : message;
}
