/**
 * The pure half of the approval policy: how a tool is named in what the user allowed, and which
 * edits ask every time.
 *
 * Files whose change can make something run later (a task, a hook, a CI job, a dev container, an
 * MCP server): an edit to one is asked about every time, even for a tool the user allowed in the
 * chat or always. Pure.
 */
import type { Confirmation, ToolSpec } from './types';

/** Workspace-relative path prefixes and names (lower case) whose edits always ask. */
const ALWAYS_ASK: readonly RegExp[] = [
  /^\.vscode\//,
  /^\.github\/workflows\//,
  /^\.husky\//,
  /^\.devcontainer\//,
  /^\.gitlab-ci\.yml$/,
  /(^|\/)\.git(\/|$)/,
  /(^|\/)(package\.json|\.npmrc|makefile|\.envrc|\.bashrc|\.zshrc|\.profile)$/,
];

/** Whether the confirmation is an edit of a file whose change can make something run later. */
export function alwaysAsks(confirmation: Confirmation | undefined): boolean {
  if (confirmation?.kind !== 'edit') return false;
  const path = confirmation.path.replace(/\\/g, '/').toLowerCase();
  return ALWAYS_ASK.some((pattern) => pattern.test(path));
}

/**
 * How a tool is named in `gateway.agent.alwaysAllow` and in a chat's allowed set: our own by
 * name, others by source and what runs behind it too, so a same-named tool of another server or
 * extension, or the same server launched differently, is not allowed with it.
 */
export function approvalKey(spec: ToolSpec): string {
  if (spec.source.kind === 'builtin') return spec.name;
  const fingerprint = spec.source.fingerprint ? `#${spec.source.fingerprint.slice(0, 12)}` : '';
  return `${spec.source.kind}:${spec.source.id}${fingerprint}/${spec.name}`;
}

/** The tool whose calls are never allowed wholesale: each command line is its own decision. */
export const RUN_COMMAND = 'run_command';

/** Whether *Always allow this tool* may be offered and kept for a tool: never for running commands. */
export function mayAlwaysAllow(spec: ToolSpec): boolean {
  return !(spec.source.kind === 'builtin' && spec.name === RUN_COMMAND);
}

/** A command line the user allowed always, in the folder it was allowed in. */
export interface AllowedCommand {
  command: string;
  cwd: string;
}

/** Most exact commands kept; the oldest go first. */
export const MAX_ALLOWED_COMMANDS = 200;

/** The remembered commands from storage (outside data): well-formed entries, each once, bounded. */
export function parseAllowedCommands(value: unknown): AllowedCommand[] {
  if (!Array.isArray(value)) return [];
  const out: AllowedCommand[] = [];
  for (const item of value.slice(-MAX_ALLOWED_COMMANDS)) {
    if (typeof item !== 'object' || item === null) continue;
    const { command, cwd } = item as Record<string, unknown>;
    if (typeof command !== 'string' || typeof cwd !== 'string' || !command || command.length > 10_000)
      continue;
    if (!out.some((seen) => seen.command === command && seen.cwd === cwd)) out.push({ command, cwd });
  }
  return out;
}

/** Whether a command confirmation is one the user allowed always: the same command line, byte for byte, in the same folder. */
export function commandAllowed(
  list: readonly AllowedCommand[],
  confirmation: Confirmation | undefined,
): boolean {
  if (confirmation?.kind !== 'command') return false;
  return list.some((entry) => entry.command === confirmation.command && entry.cwd === confirmation.cwd);
}

/** The list with one more command, newest last. */
export function withAllowedCommand(list: readonly AllowedCommand[], entry: AllowedCommand): AllowedCommand[] {
  const rest = list.filter((e) => e.command !== entry.command || e.cwd !== entry.cwd);
  return [...rest, { command: entry.command, cwd: entry.cwd }].slice(-MAX_ALLOWED_COMMANDS);
}
