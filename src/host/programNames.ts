/**
 * The words of a program search that need no file system: a variable of the environment, whether
 * a command names a path, the file names a command may be. Pure: `programPath.ts` (the desktop)
 * and its browser variant share them.
 */

type Env = Readonly<Record<string, string | undefined>>;

/**
 * On Windows, in a child's environment: `cmd.exe` and `CreateProcess` then stop looking for a
 * program in the working folder before PATH (a wrapper such as `npx.cmd` runs `node` by name).
 */
export const NO_CURRENT_FOLDER_LOOKUP = { NoDefaultCurrentDirectoryInExePath: '1' } as const;

/** A variable of `env`, by its name in any case on Windows (`Path`, `PATH`). */
export function envValue(env: Env, name: string, platform: string): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

/** Whether a command names a path (`./x`, `bin/x`, `C:\x`) rather than a program to find. */
export function isPathLike(command: string, platform: string): boolean {
  return (
    command.includes('/') || (platform === 'win32' && (command.includes('\\') || /^[A-Za-z]:/.test(command)))
  );
}

/** The file names a command may be, in the order tried: on Windows, with each PATHEXT extension. */
export function programNames(command: string, search: { platform: string; env: Env }): string[] {
  if (search.platform !== 'win32') return [command];
  const extensions = (envValue(search.env, 'PATHEXT', 'win32') || '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .map((e) => e.trim())
    .filter((e) => /^\.[^.\\/]+$/.test(e));
  const dot = command.lastIndexOf('.');
  const given = dot > 0 ? command.slice(dot).toLowerCase() : '';
  if (given && extensions.some((e) => e.toLowerCase() === given)) return [command];
  return extensions.map((e) => command + e.toLowerCase());
}
