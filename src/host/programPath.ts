/**
 * Which program a bare command name (`npx`, `git`, `uvx`) runs, found the way the user's shell
 * would find it but never in the workspace: on Windows `cmd.exe`, `CreateProcess` and
 * `cross-spawn` look in the working folder before PATH, and the working folder is the user's
 * repository, so a repository's own `npx.cmd` or `git.exe` would run. Here a name is looked up
 * on PATH alone, and every PATH entry that is empty, relative (`.`, `node_modules/.bin`) or inside
 * a workspace folder (as written or by its real path) is skipped. On Windows the name is tried
 * with each PATHEXT extension, as `cmd.exe` does. What is found is run by its absolute path.
 *
 * The platform, the environment and the file system are parameters, so the Windows rules are
 * tested on any machine.
 */
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { envValue, isPathLike, programNames } from './programNames';

export { envValue, isPathLike, NO_CURRENT_FOLDER_LOOKUP, programNames } from './programNames';

/** What the search may look at. */
export interface ProgramFs {
  /** Whether `file` is a file this platform would run (a regular file; on POSIX, executable). */
  isProgram(file: string): Promise<boolean>;
  /** The real path, or undefined when it cannot be found. */
  realPath(file: string): Promise<string | undefined>;
}

export interface ProgramSearch {
  platform: NodeJS.Platform;
  /** The environment whose PATH (and, on Windows, PATHEXT) is searched: the user's, not a launch's. */
  env: Readonly<Record<string, string | undefined>>;
  /** Folders whose programs never run by name: the workspace folders. */
  workspaceFolders: readonly string[];
  fs: ProgramFs;
}

export type ProgramResolution = { ok: true; program: string } | { ok: false; reason: string };

export const nodeProgramFs = (platform: NodeJS.Platform = process.platform): ProgramFs => ({
  async isProgram(file) {
    try {
      if (!(await stat(file)).isFile()) return false;
      if (platform !== 'win32') await access(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  realPath: (file) => realpath(file).catch(() => undefined),
});

/** The search of this process: its platform, its environment, the real file system. */
export function hostProgramSearch(workspaceFolders: readonly string[]): ProgramSearch {
  return { platform: process.platform, env: process.env, workspaceFolders, fs: nodeProgramFs() };
}

const pathOf = (platform: NodeJS.Platform) => (platform === 'win32' ? nodePath.win32 : nodePath.posix);

/** Whether `inner` is `outer` or inside it (case-insensitive on Windows). */
function isInside(outer: string, inner: string, platform: NodeJS.Platform): boolean {
  const p = pathOf(platform);
  const fold = (s: string) => (platform === 'win32' ? s.toLowerCase() : s);
  const relative = p.relative(fold(p.resolve(outer)), fold(p.resolve(inner)));
  return relative === '' || (!relative.startsWith('..') && !p.isAbsolute(relative));
}

/**
 * The PATH entries a name may be found in, in order: absolute, not inside a workspace folder as
 * written (the real paths are judged in `resolveProgram`), each once.
 */
export function searchFolders(search: Omit<ProgramSearch, 'fs'>): string[] {
  const { platform } = search;
  const out: string[] = [];
  for (const entry of pathEntries(search)) {
    if (search.workspaceFolders.some((folder) => isInside(folder, entry, platform))) continue;
    if (!out.some((o) => (platform === 'win32' ? o.toLowerCase() === entry.toLowerCase() : o === entry)))
      out.push(entry);
  }
  return out;
}

/** PATH's absolute entries, in order (empty, relative and drive-relative ones left out). */
function pathEntries(search: Omit<ProgramSearch, 'fs'>): string[] {
  const { platform } = search;
  const p = pathOf(platform);
  const raw = envValue(search.env, 'PATH', platform) ?? '';
  return raw
    .split(platform === 'win32' ? ';' : ':')
    .map((entry) => (platform === 'win32' ? entry.trim().replace(/^"(.*)"$/, '$1') : entry))
    .filter(
      (entry) =>
        !!entry &&
        p.isAbsolute(entry) &&
        // `\foo` is absolute to Node on Windows but means the current drive: the working folder's.
        (platform !== 'win32' || /^([A-Za-z]:[\\/]|\\\\)/.test(entry)),
    );
}

/** Every file a bare name could be on PATH, in the order a shell would try them (no file is read). */
export function pathCandidates(command: string, search: Omit<ProgramSearch, 'fs'>): string[] {
  const p = pathOf(search.platform);
  const names = programNames(command, search);
  return searchFolders(search).flatMap((folder) => names.map((name) => p.join(folder, name)));
}

/**
 * The absolute path a command runs, or why none may run. A bare name is found on PATH outside
 * the workspace (see the file's comment). A command that names a path (`./server`,
 * `${workspaceFolder}/bin/server`, `/usr/bin/node`) is that file, resolved against `cwd`: it is
 * what the configuration chose and what the user is shown.
 */
export async function resolveProgram(
  command: string,
  search: ProgramSearch,
  cwd?: string,
): Promise<ProgramResolution> {
  const { platform } = search;
  const p = pathOf(platform);
  const shown = JSON.stringify(command.length > 200 ? `${command.slice(0, 200)}…` : command);
  // eslint-disable-next-line no-control-regex
  if (!command.trim() || /[\u0000-\u001f]/.test(command))
    return { ok: false, reason: `The command ${shown} is not a program name.` };
  if (isPathLike(command, platform)) {
    if (!p.isAbsolute(command) && !cwd)
      return {
        ok: false,
        reason: `The command ${shown} is a relative path, and there is no folder to find it in.`,
      };
    const file = p.resolve(cwd ?? '', command);
    for (const name of programNames(file, search))
      if (await search.fs.isProgram(name)) return { ok: true, program: name };
    return { ok: false, reason: `The program ${JSON.stringify(file)} does not exist or cannot be run.` };
  }
  const realFolders = (await Promise.all(search.workspaceFolders.map((f) => search.fs.realPath(f)))).filter(
    (f): f is string => f !== undefined,
  );
  let inWorkspace = false;
  for (const candidate of pathCandidates(command, search)) {
    if (!(await search.fs.isProgram(candidate))) continue;
    // A PATH entry that is a link into the workspace, or a program that is one, is the workspace's.
    const real = (await search.fs.realPath(candidate)) ?? candidate;
    if (realFolders.some((folder) => isInside(folder, real, platform))) {
      inWorkspace = true;
      continue;
    }
    return { ok: true, program: candidate };
  }
  // Said when the name is there: in the working folder, a workspace folder or a PATH entry inside one.
  if (!inWorkspace) {
    const places = [
      ...(cwd ? [cwd] : []),
      ...search.workspaceFolders,
      ...pathEntries(search).filter((entry) =>
        search.workspaceFolders.some((folder) => isInside(folder, entry, platform)),
      ),
    ];
    for (const folder of places)
      for (const name of programNames(command, search))
        if (!inWorkspace && (await search.fs.isProgram(p.join(folder, name)))) inWorkspace = true;
  }
  const skipped =
    'Gateway AI runs a program named without a path only from a PATH folder outside the workspace (never from the workspace, a relative PATH entry or the current folder), so that a repository cannot put its own program in its place.';
  return {
    ok: false,
    reason: inWorkspace
      ? `${shown} was found only inside the workspace. ${skipped} Name the program by its full path to run it.`
      : `${shown} was not found on PATH. ${skipped}`,
  };
}

/**
 * PATH for a child process: the entries `searchFolders` keeps, so that what the program itself
 * runs by name (a wrapper's `node`) is not found in the workspace either.
 */
export function childPath(search: Omit<ProgramSearch, 'fs'>): string {
  return searchFolders(search).join(search.platform === 'win32' ? ';' : ':');
}
