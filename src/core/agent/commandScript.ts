/**
 * How an approved command reaches a shell without passing through its line editor: the exact
 * text is written to a script file, and the shell runs that file (`/bin/bash /tmp/…/command.sh`).
 * What is typed into the terminal is then only a shell's path and a file's path, in plain ASCII,
 * which no line editor rewrites; the command's own bytes are read by the shell from the file.
 * Pure: the host writes the file and picks the terminal.
 */
import { findHiddenCharacter } from './hiddenText';

/** Shells that run a script file given as their first argument, and take POSIX single quotes. */
const SCRIPT_SHELLS = new Set(['bash', 'zsh', 'sh', 'dash', 'ksh', 'mksh', 'fish']);

/** The shell used when the user's default is not one of those (PowerShell, nu, xonsh, none). */
export const FALLBACK_SHELL = '/bin/sh';

/**
 * The shell that runs the script: the user's default terminal shell when it is a POSIX-style one
 * (so a command runs as it would in their terminal), else `/bin/sh`.
 */
export function scriptShell(defaultShell: string | undefined): string {
  const path = defaultShell?.trim() ?? '';
  const name =
    path
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.exe$/i, '') ?? '';
  return path.startsWith('/') && SCRIPT_SHELLS.has(name) ? path : FALLBACK_SHELL;
}

/** A word as a POSIX shell (and fish) reads it back exactly: bare when plain, else single-quoted. */
function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The line typed into the terminal to run `file` with `shell`, or undefined when one of the
 * paths holds a character a line editor could act on (then the command must not go through a
 * terminal's input at all).
 */
export function scriptCommandLine(shell: string, file: string): string | undefined {
  if (findHiddenCharacter(shell) || findHiddenCharacter(file) || /[\n\t\\']/.test(shell + file))
    return undefined;
  return `${quote(shell)} ${quote(file)}`;
}

/** The script's text: the approved command, exactly, ended by a line feed. */
export function scriptText(command: string): string {
  return command.endsWith('\n') ? command : `${command}\n`;
}

/**
 * Whether a command line a terminal reported is the line `sent`, spaces and line breaks aside:
 * a terminal may report a typed line with a break inside it.
 */
export function sameCommandLine(reported: string, sent: string): boolean {
  return reported.replace(/\s+/g, '') === sent.replace(/\s+/g, '');
}
