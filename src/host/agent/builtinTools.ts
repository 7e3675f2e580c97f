import * as vscode from 'vscode';
import {
  alwaysAskRule,
  alwaysAskWhy,
  PACKAGE_JSON_MAX_BYTES,
  packageScriptFiles,
} from '../../core/agent/approvalPolicy';
import { applyHunks, changedSpan } from '../../core/agent/editHunks';
import {
  literalMatches,
  looksBinary,
  shortLine,
  sliceLines,
  smartIgnoreCase,
} from '../../core/agent/fileText';
import {
  parseCreateFileArgs,
  parseEditFileArgs,
  parseGetProblemsArgs,
  parseListFilesArgs,
  parseReadFileArgs,
  parseRunCommandArgs,
  parseSearchTextArgs,
} from '../../core/agent/toolArgs';
import { prettyArguments } from '../../core/agent/externalTools';
import { privateKeyIn } from '../../core/agent/secretContent';
import type {
  PaidCall,
  PreparedCall,
  ToolOutput,
  ToolSet,
  ToolSource,
  ToolSpec,
} from '../../core/agent/types';
import { ToolInputError } from '../../core/agent/types';
import { unifiedDiff } from '../../core/agent/unifiedDiff';
import type { SpendHold } from '../../core/cost/spendHolds';
import {
  confirmationLines,
  parseGenerateMediaInput,
  planToolRequest,
} from '../../core/mediaStudio/toolInput';
import type { GenerateMediaInput, ToolDefaults } from '../../core/mediaStudio/toolInput';
import type { Settings } from '../config/settings';
import { uriOfPath } from '../diskPaths';
import { HOST_PLATFORM } from '../platform';
import { readWorkspaceFile } from '../workspaceFile';
import { CommandRunner, NO_COMMANDS } from './commandRunner';
import type { CommandResult } from './commandRunner';
import { checkRegex, regexSearch } from './regexSearch';
import type { RegexFile } from './regexSearch';
import { WorkspaceAccess } from './workspaceAccess';
import type { Located, WorkspaceFs } from './workspaceAccess';

/**
 * What `generate_media` runs: the media feature's own tool (`gateway_generateMedia`), loaded
 * lazily. `price` and `invokePaid` let the agent's spend caps count its jobs; a tool without them
 * has an unknown price, and its hold keeps the estimate.
 */
export type MediaTool = Pick<vscode.LanguageModelTool<GenerateMediaInput>, 'prepareInvocation' | 'invoke'> & {
  price?(input: GenerateMediaInput): Promise<PaidCall>;
  invokePaid?(
    options: vscode.LanguageModelToolInvocationOptions<GenerateMediaInput>,
    token: vscode.CancellationToken,
    hold: SpendHold,
  ): Promise<vscode.LanguageModelToolResult>;
};

export interface BuiltinToolsDeps {
  /** The workspace folders (`vscode.workspace.workspaceFolders`). */
  folders(): readonly vscode.WorkspaceFolder[];
  /** Whether the workspace is trusted (`vscode.workspace.isTrusted`): edits and commands need it. */
  trusted(): boolean;
  /** The settings the tools read, at each call. */
  settings(): {
    /** `gateway.agent.commandTimeoutSeconds`. */
    commandTimeoutSeconds: number;
    /** Globs never read, listed or searched: DEFAULT_EXCLUDE plus `gateway.inlineCompletions.exclude`. */
    secretPatterns: readonly string[];
    /** The media defaults (`gateway.media.*`), for what `generate_media` will send. */
    media: ToolDefaults;
    /** VS Code's terminal settings (shell, environment) the workspace sets: commands avoid its terminals. */
    workspaceTerminal: readonly string[];
  };
  logger: { info(message: string): void; warn(message: string): void };
  /** The media feature's tool; without it, `generate_media` is not offered. */
  generateMedia?: () => Promise<MediaTool>;
  /** Command runner options (tests choose the child-process path or the wait for shell integration). */
  commands?: ConstructorParameters<typeof CommandRunner>[0];
  /** How files are named and found: this platform's (tests give the browser's, on the same folder). */
  files?: WorkspaceFs;
}

/** The settings the tools read, from the settings service: what `BuiltinToolsDeps.settings` usually is. */
export function toolSettings(from: Settings): ReturnType<BuiltinToolsDeps['settings']> {
  const settings = from.current;
  return {
    commandTimeoutSeconds: settings.agent.commandTimeoutSeconds,
    // The secrets inline completions never send: the built-in list and the user's additions.
    secretPatterns: settings.inlineCompletions.exclude,
    media: {
      model: settings.media.model,
      parameters: settings.media.parameters,
      saveFolder: settings.media.saveFolder,
    },
    workspaceTerminal: from.workspaceTerminalSettings(),
  };
}

export const BUILTIN_SOURCE: ToolSource = { kind: 'builtin', id: 'gateway', label: 'Gateway AI' };

/** Most entries `list_files` returns; most files, bytes and matches `search_text` reads and returns. */
export const LIST_MAX = 500;
export const SEARCH_MAX_FILES = 5000;
export const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
export const SEARCH_MAX_TOTAL_BYTES = 32 * 1024 * 1024;
export const SEARCH_MAX_MATCHES = 200;
export const PROBLEMS_MAX = 200;
/** Largest file `read_file` and `edit_file` open. */
export const FILE_MAX_BYTES = 4 * 1024 * 1024;

/** Tools that change something: not offered, and refused, in an untrusted workspace (media is saved into it). */
const NEEDS_TRUST = new Set(['create_file', 'edit_file', 'run_command', 'generate_media']);

const PATH_PARAM = {
  type: 'string',
  description:
    'Path relative to the workspace folder (with several folders, it may start with the folder name).',
};

const SPECS: ReadonlyArray<Omit<ToolSpec, 'source'>> = [
  {
    name: 'read_file',
    description:
      'Read a text file of the workspace, with line numbers. Returns at most 2,000 lines or 64 KB per call; for a longer file, read on with start_line. Use start_line/end_line to read only the part you need.',
    parameters: {
      type: 'object',
      properties: {
        path: PATH_PARAM,
        start_line: { type: 'integer', minimum: 1, description: 'First line to read (1-based). Default 1.' },
        end_line: {
          type: 'integer',
          minimum: 1,
          description: 'Last line to read (inclusive). Default: the end.',
        },
      },
      required: ['path'],
    },
    readOnly: true,
  },
  {
    name: 'list_files',
    description:
      'List the files of the workspace (at most 500), skipping what files.exclude and .gitignore hide. Narrow it with a glob (e.g. "**/*.ts", relative to path) and a folder path.',
    parameters: {
      type: 'object',
      properties: {
        glob: {
          type: 'string',
          description: 'Glob relative to path, e.g. "**/*.test.ts". Default: every file.',
        },
        path: {
          type: 'string',
          description: 'Folder to list, relative to the workspace folder. Default: the whole workspace.',
        },
      },
    },
    readOnly: true,
  },
  {
    name: 'search_text',
    description:
      'Search the text of the workspace files (not those files.exclude or .gitignore hide) and return matching lines as path:line: text, at most 200. Case-insensitive unless the query has an upper-case letter. Set is_regex for a JavaScript regular expression.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Text to find (or a regular expression with is_regex).' },
        glob: { type: 'string', description: 'Only files matching this glob, e.g. "src/**/*.ts".' },
        is_regex: { type: 'boolean', description: 'Treat query as a regular expression. Default false.' },
      },
      required: ['query'],
    },
    readOnly: true,
  },
  {
    name: 'get_problems',
    description:
      "List the errors and warnings of VS Code's Problems view (compilers, linters) for the workspace, or for one file.",
    parameters: {
      type: 'object',
      properties: { path: { ...PATH_PARAM, description: 'Only this file. Default: all files.' } },
    },
    readOnly: true,
  },
  {
    name: 'create_file',
    description:
      'Create a new text file with the given content (its folders are created too). Fails if the file exists: change existing files with edit_file. The user approves it first.',
    parameters: {
      type: 'object',
      properties: {
        path: PATH_PARAM,
        content: { type: 'string', description: 'The whole content of the file.' },
      },
      required: ['path', 'content'],
    },
    readOnly: false,
  },
  {
    name: 'edit_file',
    description:
      'Change an existing file by search/replace edits, applied in order. Each search must be text copied exactly from the file (whitespace included) that occurs exactly once; include a few surrounding lines to make it unique. The user approves the diff first.',
    parameters: {
      type: 'object',
      properties: {
        path: PATH_PARAM,
        edits: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: {
              search: { type: 'string', description: 'Exact text to replace; must occur exactly once.' },
              replace: { type: 'string', description: 'The text to put in its place.' },
            },
            required: ['search', 'replace'],
          },
        },
      },
      required: ['path', 'edits'],
    },
    readOnly: false,
  },
  {
    name: 'run_command',
    description:
      "Run a shell command in a terminal in the workspace and return its output's end (up to 24,000 characters) and exit code. No input can be typed: use non-interactive flags. The user approves the exact command first. Long-running servers should not be started this way: the command is stopped at its timeout.",
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line, as typed in a shell.' },
        cwd: {
          type: 'string',
          description:
            'Folder to run it in, relative to the workspace folder. Default: the workspace folder.',
        },
        timeout_seconds: {
          type: 'integer',
          minimum: 1,
          description: 'Stop it after this many seconds. Default from the settings.',
        },
      },
      required: ['command'],
    },
    readOnly: false,
  },
  {
    name: 'generate_media',
    description:
      'Generate an image, video or audio with a media model through the gateway and save it into the workspace; returns the saved paths. It costs money: the user approves it first.',
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'What to generate.' },
        model: {
          type: 'string',
          description: 'Media model id, e.g. "openai/gpt-image-1". Default from the settings.',
        },
        parameters: {
          type: 'object',
          description: "Model parameters (size, duration, …) as the model's API takes them.",
        },
        saveTo: { type: 'string', description: 'Workspace folder to save into. Default from the settings.' },
      },
      required: ['prompt'],
    },
    readOnly: false,
  },
];

/**
 * Our own tools for the chat's agent: read, list and search the workspace, the Problems list,
 * create and edit files (through `WorkspaceEdit`, so the editor's undo works), run commands, and
 * generate media. Every path stays inside the workspace folders and off files that may hold
 * secrets; edits and commands need a trusted workspace.
 */
export class BuiltinTools implements ToolSet, vscode.Disposable {
  readonly source = BUILTIN_SOURCE;
  private readonly access: WorkspaceAccess;
  private readonly runner: CommandRunner;

  constructor(private readonly deps: BuiltinToolsDeps) {
    this.access = new WorkspaceAccess(
      () => deps.folders(),
      () => deps.settings().secretPatterns,
      deps.files,
    );
    this.runner = new CommandRunner({ log: (line) => deps.logger.info(line), ...deps.commands });
  }

  specs(): readonly ToolSpec[] {
    const trusted = this.deps.trusted();
    return SPECS.filter(
      (spec) =>
        (trusted || !NEEDS_TRUST.has(spec.name)) &&
        (spec.name !== 'generate_media' || this.deps.generateMedia) &&
        // No processes in VS Code for the Web: the prompt and the Tools menu say so instead.
        (spec.name !== 'run_command' || HOST_PLATFORM.commands),
    ).map((spec) => ({ ...spec, source: BUILTIN_SOURCE }));
  }

  async prepare(name: string, args: unknown, signal: AbortSignal): Promise<PreparedCall> {
    const prepared = await this.prepareTool(name, args, signal);
    // A failure while running is a result the model reads, never an exception that ends the turn.
    return {
      ...prepared,
      run: (runSignal, hold) =>
        prepared.run(runSignal, hold).catch((error: unknown): ToolOutput => ({
          text: error instanceof Error ? error.message : String(error),
          isError: true,
        })),
    };
  }

  private async prepareTool(name: string, args: unknown, signal: AbortSignal): Promise<PreparedCall> {
    if (NEEDS_TRUST.has(name) && !this.deps.trusted())
      throw new ToolInputError(
        `${name} is off in Restricted Mode: the workspace is not trusted, so nothing may be changed or run.`,
      );
    switch (name) {
      case 'read_file':
        return this.readFile(args);
      case 'list_files':
        return this.listFiles(args);
      case 'search_text':
        return this.searchText(args);
      case 'get_problems':
        return this.getProblems(args);
      case 'create_file':
        return this.createFile(args);
      case 'edit_file':
        return this.editFile(args);
      case 'run_command':
        return this.runCommand(args);
      case 'generate_media':
        if (this.deps.generateMedia) return this.generateMedia(args, signal);
    }
    throw new ToolInputError(`There is no tool "${name}" here.`);
  }

  private async readFile(raw: unknown): Promise<PreparedCall> {
    const args = parseReadFileArgs(raw);
    const file = await this.access.locate(args.path);
    // A wrong path is the model's to correct: said before anything runs.
    const stat = await this.stat(file);
    if (stat.type & vscode.FileType.Directory)
      throw new ToolInputError(`"${file.display}" is a folder: list it with list_files.`);
    // A key file under a name no list knows (a service account's JSON renamed): judged by what
    // it holds, on the text that is read anyway. Such a read asks first, every time.
    const names = [file.relative, file.realRelative, file.real];
    // The start of the file and the part this call returns (a key past the first 64 KB is
    // found when the model reads that far).
    const text = await this.readText(file);
    const held = privateKeyIn(names, text) ?? privateKeyIn(names, sliceLines(text, args));
    const read = async (asked: boolean): Promise<ToolOutput> => {
      const text = await this.readText(file);
      const shown = sliceLines(text, args);
      const found = privateKeyIn(names, text) ?? privateKeyIn(names, shown);
      if (found && !asked)
        return {
          text: `"${file.display}" now holds ${found}, so it was not read without asking. Call read_file again: the user is asked first.`,
          isError: true,
        };
      return { text: `${file.display}\n${shown}` };
    };
    if (!held) return { run: () => read(false) };
    return {
      confirmation: {
        kind: 'tool',
        name: 'read_file',
        source: BUILTIN_SOURCE.label,
        arguments: prettyArguments(raw),
        why: `${file.display} holds ${held}: it may be a key file, so reading it asks first, every time.`,
      },
      alwaysAsk: held,
      run: () => read(true),
    };
  }

  private async listFiles(raw: unknown): Promise<PreparedCall> {
    const args = parseListFilesArgs(raw);
    const base = args.path ? await this.access.locate(args.path) : undefined;
    if (base) await this.expectFolder(base);
    return {
      run: async () => {
        const { files, more, notice } = await this.access.listFiles({
          base,
          glob: args.glob,
          limit: LIST_MAX,
        });
        const ignored = notice ? `\n(${notice})` : '';
        if (files.length === 0)
          return { text: `No files found (files.exclude and .gitignore apply).${ignored}` };
        const note = more ? `\n… (the first ${LIST_MAX} shown; narrow the list with glob or path)` : '';
        return { text: files.map((file) => file.display).join('\n') + note + ignored };
      },
    };
  }

  private searchText(raw: unknown): Promise<PreparedCall> {
    const args = parseSearchTextArgs(raw);
    const ignoreCase = smartIgnoreCase(args.query);
    if (args.isRegex)
      try {
        checkRegex(args.query, ignoreCase ? 'iu' : 'u');
      } catch (error) {
        throw new ToolInputError(
          `"query" is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    return Promise.resolve({
      run: async (signal: AbortSignal) => {
        const { files, notice } = await this.access.listFiles({ glob: args.glob, limit: SEARCH_MAX_FILES });
        const matches: string[] = [];
        const texts: RegexFile[] = [];
        let bytes = 0;
        let skipped = 0;
        let keys = 0;
        for (const file of files) {
          if (signal.aborted || matches.length >= SEARCH_MAX_MATCHES || bytes >= SEARCH_MAX_TOTAL_BYTES)
            break;
          const text = await this.searchableText(file.uri);
          if (text === undefined) {
            skipped++;
            continue;
          }
          // A key file is not searched (reading it asks first; a search cannot ask per file). The
          // whole text, at most SEARCH_MAX_FILE_BYTES, is sniffed: every line of it could match.
          if (privateKeyIn([file.relative, file.real ?? ''], text, SEARCH_MAX_FILE_BYTES)) {
            keys++;
            continue;
          }
          bytes += text.length;
          if (args.isRegex) texts.push({ path: file.display, text });
          else
            for (const match of literalMatches(
              text,
              args.query,
              ignoreCase,
              SEARCH_MAX_MATCHES - matches.length,
            ))
              matches.push(`${file.display}:${match.line}: ${match.text}`);
        }
        if (args.isRegex) {
          const outcome = await regexSearch(
            args.query,
            ignoreCase ? 'iu' : 'u',
            texts,
            SEARCH_MAX_MATCHES,
            signal,
          );
          if (outcome.kind === 'timeout')
            return {
              text: 'The regular expression took too long (it backtracks too much), so the search was stopped. Use a simpler pattern or a literal query.',
              isError: true,
            };
          if (outcome.kind === 'stopped') return { text: 'The search was stopped.', isError: true };
          for (const match of outcome.matches)
            matches.push(`${match.path}:${match.line}: ${shortLine(match.text)}`);
        }
        const notes: string[] = [];
        if (matches.length >= SEARCH_MAX_MATCHES)
          notes.push(`the first ${SEARCH_MAX_MATCHES} matches shown; narrow the search with glob`);
        if (bytes >= SEARCH_MAX_TOTAL_BYTES) notes.push('the search stopped after 32 MB of text');
        if (skipped) notes.push(`${skipped} binary or large file${skipped === 1 ? '' : 's'} skipped`);
        if (keys)
          notes.push(
            `${keys} file${keys === 1 ? '' : 's'} that hold${keys === 1 ? 's' : ''} a private key skipped (read_file asks first)`,
          );
        if (notice) notes.push(notice);
        const body = matches.length ? matches.join('\n') : 'No matches (files.exclude and .gitignore apply).';
        return { text: body + (notes.length ? `\n(${notes.join('; ')})` : '') };
      },
    });
  }

  private async getProblems(raw: unknown): Promise<PreparedCall> {
    const args = parseGetProblemsArgs(raw);
    const only = args.path ? await this.access.locate(args.path) : undefined;
    return {
      run: () => this.problems(only),
    };
  }

  private async problems(only: Located | undefined): Promise<ToolOutput> {
    const entries: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> = only
      ? [[only.uri, vscode.languages.getDiagnostics(only.uri)]]
      : vscode.languages.getDiagnostics();
    const lines: string[] = [];
    let total = 0;
    for (const [uri, diagnostics] of entries) {
      const where = await this.access.describe(uri);
      if (!where || this.access.offLimits(where.relative)) continue;
      for (const diagnostic of diagnostics) {
        total++;
        if (lines.length >= PROBLEMS_MAX) continue;
        const { line, character } = diagnostic.range.start;
        const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
        const origin = [diagnostic.source, code !== undefined ? String(code) : undefined]
          .filter(Boolean)
          .join(' ');
        lines.push(
          `${where.display}:${line + 1}:${character + 1} ${SEVERITY[diagnostic.severity]}${origin ? ` (${origin})` : ''}: ${shortLine(diagnostic.message)}`,
        );
      }
    }
    if (total === 0)
      return { text: only ? `No problems in ${only.display}.` : 'No problems in the workspace.' };
    const note = total > lines.length ? `\n… (${lines.length} of ${total} shown)` : '';
    return { text: lines.join('\n') + note };
  }

  private async createFile(raw: unknown): Promise<PreparedCall> {
    const args = parseCreateFileArgs(raw);
    const file = await this.access.locate(args.path);
    if (!file.relative) throw new ToolInputError('"path" names a workspace folder, not a file.');
    if (await exists(file.uri))
      throw new ToolInputError(`"${file.display}" exists already: change it with edit_file (read it first).`);
    return {
      ...(await editConfirmation(file, true, unifiedDiff(null, args.content, file.display))),
      preview: { path: file.relative, folder: file.folder, before: '', after: args.content },
      run: async () => {
        if (!this.deps.trusted()) return restricted();
        await this.access.relocate(file, args.path);
        if (await exists(file.uri))
          return {
            text: `"${file.display}" was created by someone else meanwhile; nothing was changed.`,
            isError: true,
          };
        const edit = new vscode.WorkspaceEdit();
        edit.createFile(file.uri, {
          overwrite: false,
          ignoreIfExists: false,
          contents: new TextEncoder().encode(args.content),
        });
        if (!(await vscode.workspace.applyEdit(edit)))
          return { text: `VS Code did not create "${file.display}".`, isError: true };
        this.deps.logger.info(`Agent created ${file.display}`);
        return {
          text: `Created ${file.display} (${lineCount(args.content)} lines).`,
          changes: [
            {
              path: file.relative,
              folder: file.folder,
              folderUri: file.folderUri,
              before: null,
              after: args.content,
            },
          ],
        };
      },
    };
  }

  private async editFile(raw: unknown): Promise<PreparedCall> {
    const args = parseEditFileArgs(raw);
    const file = await this.access.locate(args.path);
    const document = await this.openEditable(file);
    const before = document.getText();
    const applied = applyHunks(before, args.edits);
    if (!applied.ok) throw new ToolInputError(applied.error);
    const after = applied.text;
    if (after === before)
      throw new ToolInputError('The edits change nothing: each replace equals its search.');
    return {
      ...(await editConfirmation(file, false, unifiedDiff(before, after, file.display))),
      preview: { path: file.relative, folder: file.folder, before, after },
      run: async () => {
        if (!this.deps.trusted()) return restricted();
        let doc: vscode.TextDocument;
        try {
          await this.access.relocate(file, args.path);
          doc = await this.openEditable(file);
        } catch (error) {
          return { text: error instanceof Error ? error.message : String(error), isError: true };
        }
        if (doc.getText() !== before)
          return {
            text: `"${file.display}" changed after this edit was prepared, so nothing was changed. Read it again and redo the edit.`,
            isError: true,
          };
        const edit = new vscode.WorkspaceEdit();
        const { start, end, text } = changedSpan(before, after);
        edit.replace(file.uri, new vscode.Range(doc.positionAt(start), doc.positionAt(end)), text);
        if (!(await vscode.workspace.applyEdit(edit)))
          return { text: `VS Code did not apply the edit to "${file.display}".`, isError: true };
        if (!(await doc.save()))
          return {
            text: `The edit was applied to "${file.display}" in the editor, but saving it failed.`,
            isError: true,
          };
        this.deps.logger.info(`Agent edited ${file.display}`);
        return {
          text: `Edited ${file.display}: ${args.edits.length} edit${args.edits.length === 1 ? '' : 's'} applied and saved.`,
          changes: [
            {
              path: file.relative,
              folder: file.folder,
              folderUri: file.folderUri,
              before,
              after: doc.getText(),
            },
          ],
        };
      },
    };
  }

  private async runCommand(raw: unknown): Promise<PreparedCall> {
    // Not offered there; a model that calls it anyway reads why, and the turn goes on.
    if (!HOST_PLATFORM.commands) return { run: () => Promise.resolve({ text: NO_COMMANDS, isError: true }) };
    const settings = this.deps.settings();
    const args = parseRunCommandArgs(raw);
    const folder = (await this.access.workspaceFolders())[0];
    // Without a folder the tools may use, locating the folder itself says why.
    if (!folder) {
      await this.access.locate('.');
      throw new ToolInputError('No folder is open in the workspace to run the command in.');
    }
    // The first folder's root is '.': located like any other folder, so its real path is checked too.
    const rawCwd = args.cwd ?? '.';
    const where = await this.access.locate(rawCwd);
    await this.expectFolder(where);
    const cwd = where.uri.fsPath;
    const timeoutSeconds = args.timeoutSeconds ?? settings.commandTimeoutSeconds;
    return {
      confirmation: { kind: 'command', command: args.command, cwd, timeoutSeconds },
      run: async (signal) => {
        if (!this.deps.trusted()) return restricted();
        // Located again just before it runs: a folder on the way swapped for a link after the
        // approval would have the command run somewhere the user did not approve.
        try {
          await this.access.relocate(where, rawCwd);
          await this.expectFolder(where);
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          return {
            text: `The command was not run: its folder "${where.display || '.'}" is not where it was when the command was approved. ${why}`,
            isError: true,
          };
        }
        // Read as it runs: the workspace's terminal settings as they are now.
        const workspaceTerminal = this.deps.settings().workspaceTerminal;
        this.deps.logger.info(
          `Agent runs a command in ${cwd} (timeout ${timeoutSeconds} s)${workspaceTerminal.length ? `, as its own process: the workspace sets ${workspaceTerminal.join(', ')}` : ''}`,
        );
        const result = await this.runner.run({
          command: args.command,
          // The real path just checked: no link on the way is followed again.
          cwd: where.real,
          timeoutMs: timeoutSeconds * 1000,
          signal,
          avoidTerminal: workspaceTerminal.length > 0,
        });
        return commandOutput(result, timeoutSeconds);
      },
    };
  }

  private async generateMedia(raw: unknown, signal: AbortSignal): Promise<PreparedCall> {
    const parsed = parseGenerateMediaInput(raw);
    if (!parsed.ok) throw new ToolInputError(parsed.error);
    const input = parsed.input;
    const tool = await this.deps.generateMedia!();
    // The tool remembers the plan it was asked about, and runs only that plan.
    const cancel = new vscode.CancellationTokenSource();
    await tool.prepareInvocation?.({ input }, cancel.token);
    cancel.dispose();
    // The catalog's price is held against the spend caps before the job starts.
    const paid: PaidCall = tool.price
      ? await tool.price(input).catch(() => ({ basis: "the gateway's catalogs could not be read" }))
      : { basis: 'no price is known for it' };
    if (signal.aborted) throw new ToolInputError('Stopped.');
    const lines = confirmationLines(planToolRequest(input, this.deps.settings().media));
    const price =
      paid.estimate !== undefined
        ? `Estimated cost: ${paid.basis}; it counts against the spend caps until the gateway reports the cost.`
        : `Estimated cost: unknown (${paid.basis}). With a spend cap set, it pauses to ask before it runs.`;
    return {
      confirmation: {
        kind: 'tool',
        name: 'generate_media',
        source: BUILTIN_SOURCE.label,
        arguments: [...lines, price].join('\n'),
      },
      paid,
      run: async (runSignal, hold) => {
        const source = new vscode.CancellationTokenSource();
        const onAbort = () => source.cancel();
        runSignal.addEventListener('abort', onAbort, { once: true });
        try {
          const options = { input, toolInvocationToken: undefined };
          const result =
            hold && tool.invokePaid
              ? await tool.invokePaid(options, source.token, hold)
              : await tool.invoke(options, source.token);
          const text = (result?.content ?? [])
            .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : ''))
            .join('');
          return { text: text || 'The media was generated.' };
        } catch (error) {
          if (runSignal.aborted) return { text: 'The media generation was stopped.', isError: true };
          return { text: error instanceof Error ? error.message : String(error), isError: true };
        } finally {
          runSignal.removeEventListener('abort', onAbort);
          source.dispose();
        }
      },
    };
  }

  /** The file's text: the open document's (what the user sees), else the disk's. */
  private async readText(file: Located): Promise<string> {
    const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === file.uri.toString());
    if (open) return open.getText();
    const stat = await this.stat(file);
    if (stat.type & vscode.FileType.Directory)
      throw new ToolInputError(`"${file.display}" is a folder: list it with list_files.`);
    if (stat.size > FILE_MAX_BYTES)
      throw new ToolInputError(
        `"${file.display}" is too large to read (${Math.round(stat.size / 1024)} KB).`,
      );
    // A FIFO, a device or a file that holds more than its size says is never read on and on.
    const read = await readWorkspaceFile(file.uri, FILE_MAX_BYTES);
    if (!read.ok) throw new ToolInputError(`"${file.display}" is not read: ${read.reason}.`);
    const bytes = read.bytes;
    if (looksBinary(bytes)) throw new ToolInputError(`"${file.display}" is a binary file.`);
    return new TextDecoder().decode(bytes);
  }

  /** Text worth searching, or undefined for a binary, large or unreadable file. */
  private async searchableText(uri: vscode.Uri): Promise<string | undefined> {
    try {
      // Through the bounded reader: a FIFO among the files would stop the search for good.
      const read = await readWorkspaceFile(uri, SEARCH_MAX_FILE_BYTES);
      return !read.ok || looksBinary(read.bytes) ? undefined : new TextDecoder().decode(read.bytes);
    } catch {
      return undefined;
    }
  }

  private async stat(file: Located): Promise<vscode.FileStat> {
    try {
      return await vscode.workspace.fs.stat(file.uri);
    } catch {
      throw new ToolInputError(
        `"${file.display}" does not exist. Find files with list_files or search_text.`,
      );
    }
  }

  private async expectFolder(file: Located): Promise<void> {
    const stat = await this.stat(file);
    if (!(stat.type & vscode.FileType.Directory))
      throw new ToolInputError(`"${file.display}" is a file, not a folder.`);
  }

  /** The file as a document to edit; refused when it is not there, too large, or has unsaved changes. */
  private async openEditable(file: Located): Promise<vscode.TextDocument> {
    const stat = await this.stat(file);
    if (stat.type & vscode.FileType.Directory)
      throw new ToolInputError(`"${file.display}" is a folder, not a file.`);
    if (stat.size > FILE_MAX_BYTES) throw new ToolInputError(`"${file.display}" is too large to edit here.`);
    const document = await vscode.workspace.openTextDocument(file.uri);
    if (document.isDirty)
      throw new ToolInputError(
        `"${file.display}" has unsaved changes in the editor, so it was not changed (they would be lost). Ask the user to save or revert it, then read it again.`,
      );
    return document;
  }

  dispose(): void {
    this.runner.dispose();
  }
}

const SEVERITY: Record<vscode.DiagnosticSeverity, string> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

/**
 * Whether a change to this file asks every time: judged on what the file is (its real path,
 * relative to its real folder and absolute) and on the name it was given, never on the folder
 * name the model put in front of it.
 */
async function alwaysAsk(file: Located): Promise<{ alwaysAsk?: string; why?: string }> {
  const rule = alwaysAskRule([file.relative, file.realRelative, file.real]);
  const script = rule ? undefined : await packageScriptOf(file);
  if (rule) return { alwaysAsk: rule.pattern, why: alwaysAskWhy(file.display, linkTarget(file), { rule }) };
  if (script) return { alwaysAsk: script, why: alwaysAskWhy(file.display, linkTarget(file), { script }) };
  return {};
}

/** The real path of a file the model named through a link inside the folders (what is written). */
function linkTarget(file: Located): string | undefined {
  return file.realRelative !== file.relative ? file.real : undefined;
}

/** An edit's confirmation: the path as named, the real file when a link leads there, and why it asks. */
async function editConfirmation(
  file: Located,
  created: boolean,
  diff: string,
): Promise<Pick<PreparedCall, 'confirmation' | 'alwaysAsk'>> {
  const real = linkTarget(file);
  const { alwaysAsk: pattern, why } = await alwaysAsk(file);
  return {
    confirmation: {
      kind: 'edit',
      path: file.display,
      ...(real ? { realPath: real } : {}),
      created,
      diff,
      ...(why ? { why } : {}),
    },
    ...(pattern ? { alwaysAsk: pattern } : {}),
  };
}

/**
 * The `package.json` script that runs this file, as `scripts.<name> of <package.json>`, or
 * undefined: every `package.json` from the file's real folder up to its workspace folder is
 * read (a regular file, at most PACKAGE_JSON_MAX_BYTES) and its scripts' file words compared
 * with the file's real path, without case (a case-insensitive disk runs either spelling).
 */
async function packageScriptOf(file: Located): Promise<string | undefined> {
  const parts = file.realRelative.split('/').filter(Boolean);
  if (parts.length === 0) return undefined;
  const root = file.real
    .slice(0, Math.max(0, file.real.length - file.realRelative.length))
    .replace(/[\\/]+$/, '');
  for (let depth = parts.length - 1; depth >= 0; depth--) {
    const folder = parts.slice(0, depth);
    const manifest = uriOfPath(file.uri, [root, ...folder, 'package.json'].join('/'));
    let text: string;
    try {
      const stat = await vscode.workspace.fs.stat(manifest);
      if (!(stat.type & vscode.FileType.File) || stat.size > PACKAGE_JSON_MAX_BYTES) continue;
      const bytes = await vscode.workspace.fs.readFile(manifest);
      if (bytes.length > PACKAGE_JSON_MAX_BYTES) continue;
      text = new TextDecoder().decode(bytes);
    } catch {
      continue;
    }
    const rest = parts.slice(depth).join('/').toLowerCase();
    const named = packageScriptFiles(text).find((entry) => entry.path.toLowerCase() === rest);
    if (named) return `scripts.${named.script} of ${[...folder, 'package.json'].join('/')}`;
  }
  return undefined;
}

function restricted(): ToolOutput {
  return {
    text: 'The workspace is not trusted (Restricted Mode), so nothing was changed or run.',
    isError: true,
  };
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function commandOutput(result: CommandResult, timeoutSeconds: number): ToolOutput {
  const cut = result.dropped ? `… (the first ${result.dropped} characters of output left out)\n` : '';
  const output = result.output.trim() ? cut + result.output.replace(/\s+$/, '') : '(no output)';
  switch (result.ended) {
    case 'exited':
      return { text: `${output}\n[exit code ${result.exitCode ?? 'unknown'}]` };
    case 'timeout':
      return {
        text: `${output}\n[stopped after ${timeoutSeconds} s: out of time; the command and what it started were killed]`,
        isError: true,
      };
    case 'stopped':
      return { text: `${output}\n[stopped by the user]`, isError: true };
    case 'failed':
      return { text: `The command could not be started: ${result.error ?? 'unknown error'}`, isError: true };
  }
}
