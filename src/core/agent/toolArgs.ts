/**
 * The arguments of our own tools, as a model sends them: outside data. Each parser takes any
 * value, accepts the obvious near-misses (a number sent as a string, `startLine` for
 * `start_line`), bounds every size, and either returns typed arguments or throws
 * `ToolInputError` with a message the model can act on.
 */
import { isRecord } from '../../api/json';
import type { EditHunk } from './editHunks';
import { findHiddenCharacter } from './hiddenText';
import { ToolInputError } from './types';

export const MAX_PATH_CHARS = 4096;
export const MAX_CONTENT_CHARS = 2_000_000;
export const MAX_HUNKS = 100;
export const MAX_QUERY_CHARS = 1000;
export const MAX_GLOB_CHARS = 500;
export const MAX_COMMAND_CHARS = 10_000;
export const MAX_COMMAND_LINES = 50;
export const MAX_COMMAND_TIMEOUT_SECONDS = 3600;

export interface ReadFileArgs {
  path: string;
  startLine?: number;
  endLine?: number;
}
export interface ListFilesArgs {
  glob?: string;
  path?: string;
}
export interface SearchTextArgs {
  query: string;
  glob?: string;
  isRegex: boolean;
}
export interface GetProblemsArgs {
  path?: string;
}
export interface CreateFileArgs {
  path: string;
  content: string;
}
export interface EditFileArgs {
  path: string;
  edits: EditHunk[];
}
export interface RunCommandArgs {
  command: string;
  cwd?: string;
  timeoutSeconds?: number;
}

function object(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (value === undefined || value === null) return {};
  throw new ToolInputError('The arguments must be a JSON object.');
}

/** The first of the names present (snake_case first, then camelCase). */
function field(args: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (Object.hasOwn(args, name) && args[name] !== null) return args[name];
  return undefined;
}

function text(args: Record<string, unknown>, names: string[], max: number, required: true): string;
function text(
  args: Record<string, unknown>,
  names: string[],
  max: number,
  required?: false,
): string | undefined;
function text(
  args: Record<string, unknown>,
  names: string[],
  max: number,
  required = false,
): string | undefined {
  const value = field(args, ...names);
  if (value === undefined || (typeof value === 'string' && value.trim() === '' && !required)) {
    if (required) throw new ToolInputError(`"${names[0]}" is required.`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ToolInputError(`"${names[0]}" must be a string.`);
  if (value.length > max) throw new ToolInputError(`"${names[0]}" is too long (over ${max} characters).`);
  return value;
}

function nonEmpty(args: Record<string, unknown>, names: string[], max: number): string {
  const value = text(args, names, max, true).trim();
  if (!value) throw new ToolInputError(`"${names[0]}" must not be empty.`);
  return value;
}

function positive(args: Record<string, unknown>, names: string[], max: number): number | undefined {
  const raw = field(args, ...names);
  if (raw === undefined || raw === '') return undefined;
  const value = typeof raw === 'string' ? Number(raw.trim()) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1)
    throw new ToolInputError(`"${names[0]}" must be a whole number from 1.`);
  return Math.min(max, Math.floor(value));
}

function flag(args: Record<string, unknown>, names: string[]): boolean {
  const value = field(args, ...names);
  return value === true || value === 'true';
}

export function parseReadFileArgs(value: unknown): ReadFileArgs {
  const args = object(value);
  const path = nonEmpty(args, ['path', 'file', 'filePath'], MAX_PATH_CHARS);
  const startLine = positive(args, ['start_line', 'startLine'], Number.MAX_SAFE_INTEGER);
  const endLine = positive(args, ['end_line', 'endLine'], Number.MAX_SAFE_INTEGER);
  if (startLine !== undefined && endLine !== undefined && endLine < startLine)
    throw new ToolInputError(`"end_line" (${endLine}) is before "start_line" (${startLine}).`);
  return { path, ...(startLine ? { startLine } : {}), ...(endLine ? { endLine } : {}) };
}

export function parseListFilesArgs(value: unknown): ListFilesArgs {
  const args = object(value);
  const glob = text(args, ['glob', 'pattern'], MAX_GLOB_CHARS)?.trim();
  const path = text(args, ['path', 'folder'], MAX_PATH_CHARS)?.trim();
  return { ...(glob ? { glob } : {}), ...(path && path !== '.' ? { path } : {}) };
}

export function parseSearchTextArgs(value: unknown): SearchTextArgs {
  const args = object(value);
  const query = text(args, ['query', 'text', 'pattern'], MAX_QUERY_CHARS, true);
  if (query === '') throw new ToolInputError('"query" must not be empty.');
  const glob = text(args, ['glob', 'include'], MAX_GLOB_CHARS)?.trim();
  return { query, isRegex: flag(args, ['is_regex', 'isRegex', 'regex']), ...(glob ? { glob } : {}) };
}

export function parseGetProblemsArgs(value: unknown): GetProblemsArgs {
  const args = object(value);
  const path = text(args, ['path', 'file'], MAX_PATH_CHARS)?.trim();
  return path ? { path } : {};
}

export function parseCreateFileArgs(value: unknown): CreateFileArgs {
  const args = object(value);
  const path = nonEmpty(args, ['path', 'file', 'filePath'], MAX_PATH_CHARS);
  const content = field(args, 'content', 'text', 'contents') ?? '';
  if (typeof content !== 'string') throw new ToolInputError('"content" must be a string.');
  if (content.length > MAX_CONTENT_CHARS)
    throw new ToolInputError(`"content" is too long (over ${MAX_CONTENT_CHARS} characters).`);
  return { path, content };
}

export function parseEditFileArgs(value: unknown): EditFileArgs {
  const args = object(value);
  const path = nonEmpty(args, ['path', 'file', 'filePath'], MAX_PATH_CHARS);
  let edits = field(args, 'edits', 'hunks');
  // One hunk sent flat, beside the path, is taken as a list of one.
  if (edits === undefined && (Object.hasOwn(args, 'search') || Object.hasOwn(args, 'old_text')))
    edits = [{ search: args.search ?? args.old_text, replace: args.replace ?? args.new_text }];
  if (!Array.isArray(edits) || edits.length === 0)
    throw new ToolInputError('"edits" must be a non-empty list of {"search": "...", "replace": "..."}.');
  if (edits.length > MAX_HUNKS) throw new ToolInputError(`Give at most ${MAX_HUNKS} edits per call.`);
  let total = 0;
  const hunks = edits.map((edit: unknown, i): EditHunk => {
    const where = `edits[${i}]`;
    if (!isRecord(edit))
      throw new ToolInputError(`${where} must be an object {"search": "...", "replace": "..."}.`);
    const search = field(edit, 'search', 'old_text', 'oldText', 'find');
    const replace = field(edit, 'replace', 'new_text', 'newText') ?? '';
    if (typeof search !== 'string' || search === '')
      throw new ToolInputError(`${where}.search must be the exact, non-empty text to replace.`);
    if (typeof replace !== 'string') throw new ToolInputError(`${where}.replace must be a string.`);
    total += search.length + replace.length;
    if (total > MAX_CONTENT_CHARS) throw new ToolInputError('The edits are too long altogether.');
    return { search, replace };
  });
  return { path, edits: hunks };
}

const BLANK_LINES = /\n[ \t]*\n[ \t]*\n[ \t]*\n/;
/** Spaces inside a line (not its indentation) beyond this are refused. */
const MAX_SPACE_RUN = 40;
const SPACE_RUN = new RegExp(`\\S[ \\t]{${MAX_SPACE_RUN + 1},}\\S`);

export function parseRunCommandArgs(
  value: unknown,
  maxTimeoutSeconds = MAX_COMMAND_TIMEOUT_SECONDS,
): RunCommandArgs {
  const args = object(value);
  // Checked before trimming: nothing the user did not see is dropped or kept silently.
  refuseHidden('command', text(args, ['command', 'cmd', 'commandLine'], MAX_COMMAND_CHARS, true));
  const command = nonEmpty(args, ['command', 'cmd', 'commandLine'], MAX_COMMAND_CHARS);
  if (command.split('\n').length > MAX_COMMAND_LINES)
    throw new ToolInputError(
      `"command" has over ${MAX_COMMAND_LINES} lines: write a script file with create_file and run that.`,
    );
  // Shown, but out of sight: what follows a run of blank lines, or a long run of spaces inside a
  // line, sits below or beside the part of the confirmation a reader looks at.
  if (BLANK_LINES.test(command))
    throw new ToolInputError(
      '"command" has three or more blank lines in a row, which could push part of it out of sight in the confirmation; remove them.',
    );
  if (SPACE_RUN.test(command))
    throw new ToolInputError(
      `"command" has a run of over ${MAX_SPACE_RUN} spaces or tabs inside a line, which could push part of it out of sight in the confirmation; remove them.`,
    );
  const rawCwd = text(args, ['cwd', 'directory'], MAX_PATH_CHARS);
  if (rawCwd) refuseHidden('cwd', rawCwd);
  const cwd = rawCwd?.trim();
  const timeoutSeconds = positive(args, ['timeout_seconds', 'timeoutSeconds', 'timeout'], maxTimeoutSeconds);
  return { command, ...(cwd ? { cwd } : {}), ...(timeoutSeconds ? { timeoutSeconds } : {}) };
}

/**
 * Refuses a command or folder the user could not read exactly in the confirmation, or that a
 * terminal could rewrite (see `hiddenText.ts` for the characters), naming the character and where
 * it is, so the model can send the same command in plain text.
 */
function refuseHidden(name: string, value: string): void {
  const found = findHiddenCharacter(value);
  if (!found) return;
  const where = value.includes('\n')
    ? `line ${found.line}, column ${found.column}`
    : `column ${found.column}`;
  throw new ToolInputError(
    `"${name}" holds ${found.kind} (${found.code}, at ${where}): the user could not see it in the confirmation, so nothing was run. Send the command as plain text; to give a program such a character, write it as an escape the program reads (e.g. printf '\\033').`,
  );
}
