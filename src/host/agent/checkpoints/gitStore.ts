/**
 * A folder's checkpoints in a git repository of our own, in the extension's storage: git
 * plumbing with our `GIT_DIR` and `GIT_INDEX_FILE` against the workspace folder as work tree.
 * The user's `.git` (refs, index, stash, branch, config, hooks) is never read for anything but
 * its `info/exclude`, and never written. No `vscode` here, so the unit tier runs it in plain Node.
 *
 * Safety of each git call: an explicit environment (no inherited `GIT_*`, no system or global
 * config, `HOME` in our store), hooks off, fsmonitor off, and our store's `info/attributes`
 * switching off every filter and line-ending conversion the workspace's `.gitattributes` asks
 * for, so a hostile repository can make git run nothing and files round-trip byte for byte.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import {
  CHECKPOINT_MAX_FILE_BYTES,
  CHECKPOINT_REF_PREFIX,
  checkpointsToDrop,
  isCheckpointId,
  isStorablePath,
  leftOutBecause,
  leftOutText,
  parseLeftOut,
  parseCheckpointRefs,
  parseCountObjects,
  parseLsTree,
  parsePathList,
} from '../../../core/agent/checkpoints';
import type {
  LeftOutList,
  PruneLimits,
  RestorePlan,
  StoredCheckpoint,
  TreeEntry,
} from '../../../core/agent/checkpoints';
import { judgeFolder } from '../paths/folderRules';
import { applyPlanWith, CheckpointError } from './checkpointStore';
import type { CheckpointStore, FolderWriter, SnapshotSummary } from './checkpointStore';
import { pathCandidates } from '../../programPath';

export { CheckpointError };

/** Paths handed to one `update-index` call: progress is kept between calls if time runs out. */
const UPDATE_BATCH = 2_000;
/** Files stat'ed at once. */
const STAT_CONCURRENCY = 64;
const MAX_OUTPUT = 256 * 1024 * 1024;

/** Config every call gets on its command line, over whatever our store's config says. */
const SAFE_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.quotePath=false',
  'core.sparseCheckout=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'commit.gpgSign=false',
  'protocol.allow=never',
];

/** Our `info/attributes`: above every `.gitattributes`, it turns conversions and filters off. */
const NEUTRAL_ATTRIBUTES = '* -text !eol -filter -ident !working-tree-encoding -diff -merge\n';

export interface SnapshotResult extends SnapshotSummary {
  commit: string;
  tree: string;
}

export interface GitStoreOptions {
  /** Our store's folder (created on first use). */
  dir: string;
  /** The workspace folder (its real path is used). */
  workTree: string;
  /** Globs of files never stored (the secrets list). */
  secretPatterns: () => readonly string[];
  maxFileBytes?: number;
  /** The git executable (`git` on the PATH). */
  git?: string;
}

/** The left-out list's name in its commit's tree. */
const LEFT_OUT_FILE = 'left-out';

/** Bumped when what snapshots leave out changes, so indexes made before are judged again. */
const RULES_VERSION = 1;

function rulesKey(work: string, patterns: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([RULES_VERSION, work, patterns]))
    .digest('hex');
}

/** The store's folder name for a workspace folder: a hash of its real path. */
export function storeNameFor(realFolder: string): string {
  return createHash('sha256').update(realFolder).digest('hex').slice(0, 24);
}

export class GitCheckpointStore implements CheckpointStore {
  private ready: Promise<void> | undefined;
  /** One operation at a time: our index and refs are written by one git at once. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Undefined where no git was found on PATH outside the workspace. */
  private readonly git: string | undefined;

  constructor(private readonly options: GitStoreOptions) {
    this.git = options.git ?? gitOnPath(options.workTree);
  }

  get dir(): string {
    return this.options.dir;
  }

  /** Runs `work` after the store's earlier operations. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Snapshots the folder's files (those `.gitignore` and the secrets list leave, up to the size
   * cap) under `refs/checkpoints/<id>`. Rejects with a `CheckpointError` of kind `timeout` when
   * `deadline` (epoch ms) passes first; what was hashed by then is kept for the next snapshot.
   */
  snapshot(id: string, deadline: number, message = 'checkpoint'): Promise<SnapshotResult> {
    if (!isCheckpointId(id)) return Promise.reject(new CheckpointError('Not a checkpoint id.', 'failed'));
    return this.serial(() =>
      this.snapshotNow(id, deadline, message).catch(async (error: unknown) => {
        // An index that no longer matches the objects (pruned by another window) is started afresh.
        if (error instanceof CheckpointError && error.kind === 'failed')
          await fs.rm(this.indexFile, { force: true }).catch(() => undefined);
        throw error;
      }),
    );
  }

  private async snapshotNow(id: string, deadline: number, message: string): Promise<SnapshotResult> {
    const started = Date.now();
    // The agent's tools' rule: a folder too broad by its path as written or its real path (the
    // home folder, `~/.aws`, a system folder) is never read, so never copied here either.
    const judged = await judgeFolder(this.options.workTree);
    if (judged.why)
      throw new CheckpointError(
        `${this.options.workTree} is ${judged.why}; checkpoints never copy its files.`,
        'refused',
      );
    const work = await this.prepare(deadline);
    const patterns = this.options.secretPatterns();
    await this.dropNowOffLimits(work, patterns, deadline);
    const exclude = await this.userExcludeFile(work);
    const excludeConfig = exclude ? ['-c', `core.excludesFile=${exclude}`] : [];
    const [listing, ignored] = await Promise.all([
      this.run(
        [...excludeConfig, 'ls-files', '-z', '--others', '--modified', '--deleted', '--exclude-standard'],
        deadline,
        work,
      ),
      // What is there and ignored (a wholly ignored folder as `dir/`): with what is left out
      // below, the files this checkpoint does not cover, which a restore must leave alone.
      this.run(
        [...excludeConfig, 'ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
        deadline,
        work,
      ),
    ]);
    const listed = parsePathList(listing);
    const notCovered = ignored.split('\0').filter(Boolean);
    const leftOut = { secret: 0, large: 0 };
    /** Folders of the work tree already checked: true when a real folder (no link). */
    const folders = new Map<string, Promise<boolean>>();
    const maxBytes = this.options.maxFileBytes ?? CHECKPOINT_MAX_FILE_BYTES;
    // A batch at a time, each written to our index: a snapshot that runs out of time keeps what
    // it hashed, and the next one (which lists only what is new or changed) goes on from there.
    for (let at = 0; at < listed.length; at += UPDATE_BATCH) {
      const add: string[] = [];
      const drop: string[] = [];
      const batch = listed.slice(at, at + UPDATE_BATCH);
      for (let i = 0; i < batch.length; i += STAT_CONCURRENCY) {
        if (Date.now() > deadline) throw timedOut(started);
        const chunk = batch.slice(i, i + STAT_CONCURRENCY);
        const stats = await Promise.all(chunk.map((p) => lstatInside(work, p, folders)));
        chunk.forEach((p, j) => {
          const stat = stats[j];
          // Gone, or no longer a file or link (a folder now, or under a path that is no longer
          // a folder: replaced by a file or a link, never followed): out of our index.
          if (!stat || (!stat.isFile() && !stat.isSymbolicLink())) {
            drop.push(p);
            return;
          }
          const why = leftOutBecause(p, stat.size, patterns, maxBytes, path.join(work, p));
          if (why === 'secret') leftOut.secret++;
          if (why === 'large') leftOut.large++;
          if (why) {
            drop.push(p);
            notCovered.push(p);
          } else add.push(p);
        });
      }
      if (drop.length)
        await this.run(['update-index', '-z', '--force-remove', '--stdin'], deadline, work, drop);
      // `--replace`: a file where our index has a folder (or the reverse, in a later batch)
      // takes the place of the entries it conflicts with.
      if (add.length)
        await this.run(['update-index', '-z', '--add', '--replace', '--stdin'], deadline, work, add);
    }
    const tree = (await this.run(['write-tree'], deadline, work)).trim();
    // The left-out list is kept in a commit of its own, the checkpoint's parent: reachable, so
    // pruning keeps it as long as the checkpoint, and the same list is stored once.
    const list = (
      await this.run(['hash-object', '-w', '--stdin'], deadline, work, [leftOutText(notCovered)], '')
    ).trim();
    const listTree = (
      await this.run(['mktree'], deadline, work, [`100644 blob ${list}\t${LEFT_OUT_FILE}`], '\n')
    ).trim();
    const listCommit = (await this.run(['commit-tree', listTree, '-m', 'left out'], deadline, work)).trim();
    const commit = (
      await this.run(['commit-tree', tree, '-p', listCommit, '-m', message], deadline, work)
    ).trim();
    await this.run(['update-ref', `${CHECKPOINT_REF_PREFIX}${id}`, commit], deadline, work);
    const files = Number((await this.run(['ls-files', '-z'], deadline, work)).split('\0').length - 1);
    await fs.writeFile(this.rulesFile, rulesKey(work, patterns)).catch(() => undefined);
    return { commit, tree, leftOut, files, ms: Date.now() - started };
  }

  /**
   * When the rules changed since this index was last used (the secrets list, the folder's real
   * path, or the rules themselves in an update), every file our index holds is judged again and
   * those now off limits are taken out: an unchanged file is never listed again, so it would
   * otherwise stay in every later snapshot.
   */
  private async dropNowOffLimits(work: string, patterns: readonly string[], deadline: number): Promise<void> {
    const key = rulesKey(work, patterns);
    if ((await fs.readFile(this.rulesFile, 'utf8').catch(() => '')) === key) return;
    if (!(await exists(this.indexFile))) return;
    const held = parsePathList(await this.run(['ls-files', '-z'], deadline, work));
    const drop = held.filter(
      (p) => leftOutBecause(p, 0, patterns, Infinity, path.join(work, p)) !== undefined,
    );
    if (drop.length)
      await this.run(['update-index', '-z', '--force-remove', '--stdin'], deadline, work, drop);
  }

  /** What rules this window's index was last snapshotted under. */
  private get rulesFile(): string {
    return `${this.indexFile}.rules`;
  }

  /** Whether the store has this checkpoint. */
  async has(id: string): Promise<boolean> {
    if (!isCheckpointId(id)) return false;
    try {
      await this.serial(() =>
        this.run(['rev-parse', '--verify', '-q', `${CHECKPOINT_REF_PREFIX}${id}^{commit}`], Infinity),
      );
      return true;
    } catch {
      return false;
    }
  }

  /** The files a checkpoint holds, path → entry. */
  files(id: string): Promise<Map<string, TreeEntry>> {
    if (!isCheckpointId(id)) return Promise.reject(new CheckpointError('Not a checkpoint id.', 'failed'));
    return this.serial(async () =>
      parseLsTree(
        await this.run(
          ['ls-tree', '-r', '-z', '--full-tree', `${CHECKPOINT_REF_PREFIX}${id}^{tree}`],
          Infinity,
        ),
      ),
    );
  }

  /**
   * What checkpoint `id` left out of the files that were there (see `LeftOutList`): incomplete
   * when it cannot say (a checkpoint of an earlier version has no list).
   */
  leftOut(id: string): Promise<LeftOutList> {
    const unknown: LeftOutList = { paths: [], complete: false };
    if (!isCheckpointId(id)) return Promise.resolve(unknown);
    return this.serial(async () => {
      const text = await this.run(
        ['cat-file', 'blob', `${CHECKPOINT_REF_PREFIX}${id}^1:${LEFT_OUT_FILE}`],
        Infinity,
      ).catch(() => undefined);
      return parseLeftOut(text) ?? unknown;
    });
  }

  /** A stored file's bytes. */
  blob(oid: string): Promise<Buffer> {
    if (!/^[0-9a-f]{40,64}$/.test(oid)) return Promise.reject(new CheckpointError('Bad object id', 'failed'));
    return this.serial(() => this.runBuffer(['cat-file', 'blob', oid], Infinity));
  }

  /** The store's checkpoints, oldest first. */
  list(): Promise<StoredCheckpoint[]> {
    return this.serial(async () => {
      if (!(await exists(path.join(this.options.dir, 'HEAD')))) return [];
      const out = await this.run(
        ['for-each-ref', '--format=%(refname) %(committerdate:unix)', CHECKPOINT_REF_PREFIX],
        Infinity,
      );
      return parseCheckpointRefs(out).sort((a, b) => a.createdAt - b.createdAt);
    });
  }

  /**
   * Drops checkpoints by age and the store's size (see `checkpointsToDrop`), then lets git
   * delete what no checkpoint reaches. Returns the ids dropped.
   */
  prune(now: number, limits?: PruneLimits, keep?: ReadonlySet<string>): Promise<string[]> {
    return this.serial(async () => {
      if (!(await exists(path.join(this.options.dir, 'HEAD')))) return [];
      const refs = parseCheckpointRefs(
        await this.run(
          ['for-each-ref', '--format=%(refname) %(committerdate:unix)', CHECKPOINT_REF_PREFIX],
          Infinity,
        ),
      );
      const size = parseCountObjects(await this.run(['count-objects', '-v'], Infinity));
      const drop = checkpointsToDrop(refs, now, size, limits, keep);
      if (drop.length) {
        await this.run(
          ['update-ref', '--stdin'],
          Infinity,
          undefined,
          drop.map((id) => `delete ${CHECKPOINT_REF_PREFIX}${id}`),
          '\n',
        );
      }
      if (drop.length || size > (limits?.maxStoreBytes ?? Infinity))
        // Objects of the last hour stay: another window may have hashed them for a snapshot
        // it has not named yet.
        await this.run(['gc', '--prune=1.hour.ago', '--quiet'], Infinity);
      return drop;
    });
  }

  /** Creates the store once: a bare repository of ours, made non-bare by the work tree we pass. */
  private async prepare(deadline: number): Promise<string> {
    const work = await fs.realpath(this.options.workTree);
    this.ready ??= this.init(deadline).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    await this.ready;
    // A git killed at the deadline leaves its lock behind; the store is ours and one call runs at a time.
    await fs.rm(`${this.indexFile}.lock`, { force: true });
    return work;
  }

  private async init(deadline: number): Promise<void> {
    const dir = this.options.dir;
    if (!(await exists(path.join(dir, 'HEAD')))) {
      await fs.mkdir(dir, { recursive: true });
      await this.run(['init', '-q', '--bare', dir], deadline, undefined, undefined, '\n', false);
    }
    await fs.mkdir(path.join(dir, 'info'), { recursive: true });
    await fs.writeFile(path.join(dir, 'info', 'attributes'), NEUTRAL_ATTRIBUTES);
    await fs.writeFile(path.join(dir, 'info', 'exclude'), '');
    await fs.writeFile(path.join(dir, 'folder.txt'), `${this.options.workTree}\n`);
    await this.adoptIndex();
  }

  /**
   * Each window has an index of its own (two windows on one folder never share one), started
   * from the newest one left by an earlier window so unchanged files are not hashed again.
   * Indexes of windows that are gone are deleted.
   */
  private async adoptIndex(): Promise<void> {
    const dir = this.options.dir;
    const others: { file: string; mtime: number }[] = [];
    for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
      const match = /^index-(\d+)$/.exec(name);
      if (!match || Number(match[1]) === process.pid) continue;
      const file = path.join(dir, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat) others.push({ file, mtime: stat.mtimeMs });
      if (!isAlive(Number(match[1])))
        for (const gone of [file, `${file}.rules`]) await fs.rm(gone, { force: true }).catch(() => undefined);
    }
    const newest = others.sort((a, b) => b.mtime - a.mtime)[0];
    if (newest && !(await exists(this.indexFile)))
      await fs.writeFile(this.indexFile, await fs.readFile(newest.file)).catch(() => undefined);
  }

  private get indexFile(): string {
    return path.join(this.options.dir, `index-${process.pid}`);
  }

  /** The user's `.git/info/exclude` when `.git` is a folder: read as patterns, nothing more. */
  private async userExcludeFile(work: string): Promise<string | undefined> {
    const file = path.join(work, '.git', 'info', 'exclude');
    try {
      const stat = await fs.lstat(file);
      return stat.isFile() && !file.includes('\n') ? file : undefined;
    } catch {
      return undefined;
    }
  }

  /** The environment of every call: nothing inherited from `GIT_*`, nothing of the user's config. */
  private env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env))
      if (!key.startsWith('GIT_') && key !== 'HOME' && key !== 'XDG_CONFIG_HOME') env[key] = value;
    return {
      ...env,
      HOME: this.options.dir,
      XDG_CONFIG_HOME: this.options.dir,
      GIT_DIR: this.options.dir,
      GIT_INDEX_FILE: this.indexFile,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_AUTHOR_NAME: 'Gateway AI',
      GIT_AUTHOR_EMAIL: 'checkpoints@gateway-ai.invalid',
      GIT_COMMITTER_NAME: 'Gateway AI',
      GIT_COMMITTER_EMAIL: 'checkpoints@gateway-ai.invalid',
      LC_ALL: 'C',
    };
  }

  private run(
    args: string[],
    deadline: number,
    workTree?: string,
    input?: string[],
    separator = '\0',
    inStore = true,
  ): Promise<string> {
    return this.exec(args, deadline, workTree, input, separator, inStore).then((b) => b.toString('utf8'));
  }

  private runBuffer(args: string[], deadline: number): Promise<Buffer> {
    return this.exec(args, deadline);
  }

  private exec(
    args: string[],
    deadline: number,
    workTree?: string,
    input?: string[],
    separator = '\0',
    inStore = true,
  ): Promise<Buffer> {
    const left = deadline - Date.now();
    if (left <= 0) return Promise.reject(new CheckpointError('The time budget ran out.', 'timeout'));
    const git = this.git;
    if (git === undefined)
      return Promise.reject(new CheckpointError('Git was not found on this computer.', 'noGit'));
    const env = this.env();
    if (!inStore) {
      delete env.GIT_DIR;
      delete env.GIT_INDEX_FILE;
    }
    if (workTree) env.GIT_WORK_TREE = workTree;
    const config = SAFE_CONFIG.flatMap((c) => ['-c', c]);
    return new Promise<Buffer>((resolve, reject) => {
      const child = execFile(
        git,
        [...config, ...args],
        {
          env,
          cwd: workTree ?? this.options.dir,
          encoding: 'buffer',
          maxBuffer: MAX_OUTPUT,
          timeout: Number.isFinite(left) ? Math.max(1, left) : 0,
          killSignal: 'SIGKILL',
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT')
            return reject(new CheckpointError('Git was not found on this computer.', 'noGit'));
          if ((error as { killed?: boolean }).killed || Date.now() >= deadline)
            return reject(new CheckpointError('The time budget ran out.', 'timeout'));
          const said = stderr.toString('utf8').trim().split('\n').slice(-2).join(' ').slice(0, 300);
          reject(
            new CheckpointError(
              `git ${args.find((a) => !a.startsWith('-')) ?? ''} failed: ${said || error.message}`,
              'failed',
            ),
          );
        },
      );
      if (input) {
        child.stdin?.on('error', () => undefined);
        child.stdin?.end(input.map((line) => `${line}${separator}`).join(''));
      }
    });
  }
}

/**
 * The `lstat` of a listed path when every folder on its way inside `work` is a real folder (not a
 * file, not a link), else undefined: what lies past a link is not the folder's. `folders` caches
 * the folders checked during one snapshot.
 */
async function lstatInside(
  work: string,
  relative: string,
  folders: Map<string, Promise<boolean>>,
): Promise<Stats | undefined> {
  const parts = relative.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    let real = folders.get(dir);
    if (!real) {
      real = fs.lstat(path.join(work, dir)).then(
        (stat) => stat.isDirectory(),
        () => false,
      );
      folders.set(dir, real);
    }
    if (!(await real)) return undefined;
  }
  return fs.lstat(path.join(work, relative)).catch(() => undefined);
}

function timedOut(started: number): CheckpointError {
  return new CheckpointError(`The time budget ran out after ${Date.now() - started} ms.`, 'timeout');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** Whether a restored path may be written: relative, inside the folder, not through a link. */
export async function safeTarget(folder: string, relative: string): Promise<string | undefined> {
  if (!isStorablePath(relative)) return undefined;
  const root = await fs.realpath(folder);
  const target = path.join(root, ...relative.split('/'));
  // Each existing parent must be a real folder inside the root (no link leading elsewhere).
  let parent = path.dirname(target);
  const parents: string[] = [];
  while (parent.length > root.length) {
    parents.unshift(parent);
    parent = path.dirname(parent);
  }
  for (const dir of parents) {
    const stat = await fs.lstat(dir).catch(() => undefined);
    if (!stat) break;
    if (!stat.isDirectory()) return undefined;
  }
  return target;
}

/**
 * Writes a stored file back, exactly: content, executable bit, or link. Never through a link; an
 * empty folder in its place is removed.
 */
export async function writeEntry(target: string, entry: TreeEntry, bytes: Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true });
  const now = await fs.lstat(target).catch(() => undefined);
  if (now && (now.isSymbolicLink() || entry.mode === '120000' || !now.isFile())) {
    // A folder that took a file's place goes only when nothing is left in it (its files the
    // checkpoint covered were removed first; any other file keeps it, and the file is not restored).
    if (now.isDirectory()) {
      if (!(await removeEmptyFolders(target)))
        throw new Error(`${target} is a folder now, with files this checkpoint does not hold.`);
    } else await fs.unlink(target);
  }
  if (entry.mode === '120000') {
    await fs.symlink(Buffer.from(bytes).toString('utf8'), target);
    return;
  }
  await fs.writeFile(target, bytes);
  // The executable bit as stored; the other permission bits stay as the file has them.
  const mode = (await fs.stat(target)).mode & 0o777;
  const wanted = entry.mode === '100755' ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
  if (wanted !== mode) await fs.chmod(target, wanted).catch(() => undefined);
}

/** A folder on disk as a restore writes it: real paths, never through a link. */
export function diskWriter(folder: string): FolderWriter<string> {
  return {
    locate: (relative) => safeTarget(folder, relative),
    kind: async (target) => {
      const there = await fs.lstat(target).catch(() => undefined);
      return there ? (there.isDirectory() ? 'folder' : 'other') : undefined;
    },
    write: writeEntry,
    remove: removeEntry,
  };
}

/** Puts one folder on disk back as `plan` says (see `applyPlanWith`); what could not be done. */
export function applyPlan(options: {
  folder: string;
  folderName: string;
  plan: RestorePlan;
  target: ReadonlyMap<string, TreeEntry>;
  blob: (oid: string) => Promise<Uint8Array>;
  /** Files the user chose to leave alone (unsaved in an editor). */
  skip?: (relative: string, file: string) => boolean;
  /** Called after each file is written back. */
  written?: (relative: string, file: string, entry: TreeEntry, bytes: Uint8Array) => Promise<void>;
}): Promise<string[]> {
  return applyPlanWith(diskWriter(options.folder), options);
}

/**
 * Removes `dir` when it holds nothing but (empty) folders, and says whether it did; a folder with
 * any file or link in it stays (only empty folders inside it may have gone).
 */
async function removeEmptyFolders(dir: string, depth = 0): Promise<boolean> {
  if (depth > 64) return false;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (!entries || entries.some((e) => !e.isDirectory())) return false;
  for (const e of entries) if (!(await removeEmptyFolders(path.join(dir, e.name), depth + 1))) return false;
  return fs.rmdir(dir).then(
    () => true,
    () => false,
  );
}

/** Removes a file the checkpoint did not have (a link is removed, not what it points to). */
export async function removeEntry(target: string): Promise<void> {
  const now = await fs.lstat(target).catch(() => undefined);
  if (now && !now.isDirectory()) await fs.unlink(target);
}

/**
 * The git to run, by its absolute path. On Windows a bare name is looked up in the child's working
 * folder before PATH, and the working folder is the user's workspace: a repository's own `git.exe`
 * there would run on the first snapshot; a relative or empty PATH entry does the same elsewhere.
 * So the name is found on PATH alone, outside the workspace (see `programPath`).
 */
function gitOnPath(workTree: string): string | undefined {
  return pathCandidates('git', {
    platform: process.platform,
    env: process.env,
    workspaceFolders: [workTree],
  }).find((file) => existsSync(file));
}
