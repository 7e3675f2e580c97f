/**
 * `programPath.ts` in VS Code for the Web: no program runs in a browser, so there is no PATH to
 * search and nothing to resolve. Every resolution says so; the pure words are shared.
 */
export { envValue, isPathLike, NO_CURRENT_FOLDER_LOOKUP, programNames } from './programNames';

export interface ProgramFs {
  isProgram(file: string): Promise<boolean>;
  realPath(file: string): Promise<string | undefined>;
}

export interface ProgramSearch {
  platform: string;
  env: Readonly<Record<string, string | undefined>>;
  workspaceFolders: readonly string[];
  fs: ProgramFs;
}

export type ProgramResolution = { ok: true; program: string } | { ok: false; reason: string };

const NO_PROGRAMS =
  'Programs cannot run in VS Code for the Web (there are no processes in a browser). Open a remote window (GitHub Codespaces, a tunnel or Remote - SSH) to run them.';

export const nodeProgramFs = (platform = 'web'): ProgramFs => {
  void platform;
  return { isProgram: () => Promise.resolve(false), realPath: () => Promise.resolve(undefined) };
};

export function hostProgramSearch(workspaceFolders: readonly string[]): ProgramSearch {
  return { platform: 'web', env: {}, workspaceFolders, fs: nodeProgramFs() };
}

export function searchFolders(search: Omit<ProgramSearch, 'fs'>): string[] {
  void search;
  return [];
}

export function pathCandidates(command: string, search: Omit<ProgramSearch, 'fs'>): string[] {
  void command;
  void search;
  return [];
}

export function resolveProgram(
  command: string,
  search: ProgramSearch,
  cwd?: string,
): Promise<ProgramResolution> {
  void command;
  void search;
  void cwd;
  return Promise.resolve({ ok: false, reason: NO_PROGRAMS });
}

export function childPath(search: Omit<ProgramSearch, 'fs'>): string {
  void search;
  return '';
}
