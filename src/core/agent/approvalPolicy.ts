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
