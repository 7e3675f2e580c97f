/**
 * The workspace's instruction files (AGENTS.md, CLAUDE.md, Copilot's, and the rules folders of
 * Cline, Kilo, Roo and Continue): found and read for each turn, so an edit applies at once; what
 * the pure core says of them (`core/instructions`) decides what a turn carries.
 *
 * They follow the trust boundary: in Restricted Mode none is read unless the user opted in (the
 * application-scoped `gateway.agent.instructionsInRestrictedMode`, or the switch in
 * *Gateway AI: Instruction Files…* for this workspace). The user may switch any file off; the
 * choice is kept per workspace.
 */
import * as vscode from 'vscode';
import {
  INSTRUCTION_PATTERNS,
  MAX_INSTRUCTION_FILES,
  MAX_INSTRUCTION_FILE_BYTES,
  readInstructionFile,
} from '../../core/instructions/instructionFiles';
import type { InstructionFile } from '../../core/instructions/instructionFiles';
import { StorageKey } from '../../core/ids';
import type { Settings } from '../config/settings';
import { toolSettings } from '../agent/builtinTools';
import { WorkspaceAccess } from '../agent/workspaceAccess';
import { textOf } from '../boundedRead';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import { readWorkspaceFile, reportSkipped } from '../workspaceFile';

const ORIGIN_LABELS: Record<InstructionFile['origin'], string> = {
  agents: 'AGENTS.md',
  claude: 'CLAUDE.md',
  copilot: 'Copilot',
  copilotScoped: 'Copilot, scoped',
  cline: 'Cline rule',
  kilo: 'Kilo rule',
  roo: 'Roo rule',
  continue: 'Continue rule',
  nestedAgents: 'AGENTS.md of a folder',
};

export class InstructionFiles {
  /** Problems already logged, so each is said once per file. */
  private readonly logged = new Set<string>();

  constructor(
    private readonly state: vscode.Memento,
    private readonly logger: Logger,
    private readonly settings: Settings,
  ) {}

  /** Whether instruction files may be read here (trusted, or the user opted in). */
  allowed(): boolean {
    return (
      vscode.workspace.isTrusted ||
      this.settings.current.agent.instructionsInRestrictedMode ||
      this.state.get<unknown>(StorageKey.instructionsTrusted) === true
    );
  }

  /** The files the user switched off here. */
  off(): Set<string> {
    const raw = this.state.get<unknown>(StorageKey.instructionsOff);
    return new Set(Array.isArray(raw) ? raw.filter((p): p is string => typeof p === 'string') : []);
  }

  /** Every instruction file of the workspace, or none where they may not be read. */
  async load(signal?: AbortSignal): Promise<InstructionFile[]> {
    if (!this.allowed()) return [];
    return this.find(signal);
  }

  private async find(signal?: AbortSignal): Promise<InstructionFile[]> {
    const out: InstructionFile[] = [];
    const found = await this.readFiles(
      'Instruction file',
      INSTRUCTION_PATTERNS,
      MAX_INSTRUCTION_FILES,
      MAX_INSTRUCTION_FILE_BYTES,
      signal,
    );
    for (const { path, prefix, text } of found) {
      const file = readInstructionFile(path, text, prefix);
      if (!file) continue;
      if (file.problems.length && !this.logged.has(`${path}\u0000${file.problems.join()}`)) {
        this.logged.add(`${path}\u0000${file.problems.join()}`);
        this.logger.warn(`Instruction file ${path}: ${file.problems.join('; ')}. The rest of it is used.`);
      }
      out.push(file);
    }
    return out;
  }

  /**
   * The workspace's files matching `patterns` in each folder (at most `limit` per folder; one
   * larger than `maxBytes` is skipped, and the user told), judged as the agent's tools judge a file: its real path inside a usable
   * folder, no secret, not in .git. A repository's `.clinerules` may be a link to ~/.ssh, and an
   * `AGENTS.md` one to /proc/self/environ; what is read here goes to the gateway. Paths carry the
   * folder's name first in a multi-root workspace (`prefix`). Whether they may be read at all
   * (`allowed()`) is the caller's to ask.
   */
  async readFiles(
    kind: string,
    patterns: readonly string[],
    limit: number,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<Array<{ path: string; prefix: string; text: string }>> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const access = new WorkspaceAccess(
      () => folders,
      () => toolSettings(this.settings).secretPatterns,
    );
    const out: Array<{ path: string; prefix: string; text: string }> = [];
    for (const [index, folder] of folders.entries()) {
      const prefix = index === 0 ? '' : `${folder.name}/`;
      let uris: vscode.Uri[];
      try {
        uris = await vscode.workspace.findFiles(
          new vscode.RelativePattern(folder, `{${patterns.join(',')}}`),
          new vscode.RelativePattern(folder, '{**/node_modules/**,**/.git/**}'),
          limit,
        );
      } catch (error) {
        this.logger.warn(`${kind}s could not be listed in ${folder.name}: ${String(error)}`);
        continue;
      }
      if (signal?.aborted) return [];
      const relative = (uri: vscode.Uri) => uri.path.slice(folder.uri.path.replace(/\/$/, '').length + 1);
      uris.sort((a, b) => relative(a).localeCompare(relative(b)));
      for (const uri of uris) {
        const path = prefix + relative(uri);
        let located;
        try {
          located = await access.locateRecorded(folder.uri.toString(), relative(uri));
        } catch (error) {
          if (!this.logged.has(`${path}\u0000refused`)) {
            this.logged.add(`${path}\u0000refused`);
            this.logger.warn(`${kind} ${path} is not read: ${String((error as Error).message)}`);
          }
          continue;
        }
        // By its real path, through the one bounded reader: a regular file within the cap, or
        // skipped, and the user told why (a 1 GB AGENTS.md, a FIFO, a link to /dev/zero).
        const read = await readWorkspaceFile(vscode.Uri.file(located.real), maxBytes);
        if (read.ok) out.push({ path, prefix, text: textOf(read.bytes) });
        else if (!read.missing) reportSkipped(this.logger, `the ${kind.toLowerCase()}`, path, read.reason);
      }
    }
    return out;
  }

  /**
   * *Gateway AI: Instruction Files…*: every file with a switch (checked: sent when it applies),
   * and, in Restricted Mode, the switch that lets them be read in this workspace.
   */
  async pick(): Promise<void> {
    const restricted = !vscode.workspace.isTrusted;
    const optedIn = this.allowed();
    const files = await this.find();
    const off = this.off();
    type Item = vscode.QuickPickItem & { path?: string; trust?: true };
    const items: Item[] = [];
    if (restricted)
      items.push(
        {
          label: 'Restricted Mode',
          kind: vscode.QuickPickItemKind.Separator,
        },
        {
          label: 'Read instruction files in this workspace',
          description: this.settings.current.agent.instructionsInRestrictedMode
            ? 'on for every workspace (gateway.agent.instructionsInRestrictedMode)'
            : 'it is not trusted',
          picked: optedIn,
          trust: true,
        },
        { label: 'Files', kind: vscode.QuickPickItemKind.Separator },
      );
    for (const file of files) {
      const when = file.always
        ? 'always'
        : file.globs.length
          ? `with ${file.globs.slice(0, 3).join(', ')}`
          : 'never by itself (no applyTo)';
      items.push({
        label: file.path,
        description: `${ORIGIN_LABELS[file.origin]} · ${when} · ~${file.tokens} tokens`,
        detail: [file.description, file.problems.length ? `Header: ${file.problems.join('; ')}` : '']
          .filter(Boolean)
          .join(' · '),
        picked: !off.has(file.path),
        path: file.path,
      });
    }
    if (!files.length) {
      void notify.info(
        'Gateway AI: this workspace has no instruction files (AGENTS.md, CLAUDE.md, .github/copilot-instructions.md, or rules in .clinerules/, .kilo/rules/, .roo/rules/, .continue/rules/).',
      );
      return;
    }
    const picked = await vscode.window.showQuickPick(items, {
      canPickMany: true,
      title: 'Instruction files: checked ones go with chat turns when they apply',
      placeHolder: 'Uncheck a file to stop sending it in this workspace',
    });
    if (!picked) return;
    const on = new Set(picked.flatMap((item) => (item.path ? [item.path] : [])));
    const nowOff = files.map((f) => f.path).filter((path) => !on.has(path));
    // Files switched off earlier that are not listed now (moved, or not found) stay off.
    for (const path of off) if (!files.some((f) => f.path === path)) nowOff.push(path);
    await this.state.update(StorageKey.instructionsOff, nowOff.length ? nowOff.slice(0, 1000) : undefined);
    if (restricted)
      await this.state.update(StorageKey.instructionsTrusted, picked.some((item) => item.trust) || undefined);
  }
}
