/**
 * Runs last (the suite's index adds it after every test file): after the chat, media and settings tests have
 * done their work with real keys, no key may be found in the settings files, the extension's
 * state and storage, the log files, any message posted to a webview, or any error text.
 *
 * First it pushes keys down the paths where a leak would happen: a gateway that echoes the key it
 * was sent, and the logger handed a key raw. Then it looks everywhere. Every check also asserts
 * that it looked at something, so an empty folder or a moved log cannot make it pass unseen.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ConversationStore } from '../../src/core/chat/conversationStore';
import { storageFolder } from '../../src/host/storage/storageFolder';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { extensionLog, gatewayApi, logShows, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

/** Not shaped like a known key (no "sk-"), so only redaction of the key by its value can hide it. */
const UNKNOWN_KEY = 'gw-unknown-probe-4f1c2a9e7b31';
/** The simulator answers 403 for a key containing "forbidden", echoing the key. */
const FORBIDDEN_KEY = 'gw-forbidden-probe-8d3e6b1a5c02';
/** Never the current key: only its shape can get it redacted. */
const SHAPED_KEY = 'sk-shaped-probe-0123456789abcdef';

/** Every key used by this suite's files: the earlier tests' and this file's own. */
const KEYS = [
  TEST_KEY,
  'sk-forbidden-key-0123456789',
  'sk-from-another-window-123456',
  // The wrong key the Portkey suite sends for its 401 (the upstream echoes part of it).
  'sk-wrong-key-through-portkey-0123456789',
  UNKNOWN_KEY,
  FORBIDDEN_KEY,
  SHAPED_KEY,
];

/** Files larger than this are not read: nothing the extension or VS Code's settings write is near it. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** One place searched for keys: what was looked at and where a key turned up. */
class Search {
  looked = 0;
  readonly found: string[] = [];

  constructor(readonly what: string) {}

  text(where: string, text: string): void {
    this.looked++;
    for (const key of KEYS) if (text.includes(key)) this.found.push(`${where} contains ${key}`);
  }

  /** Bytes as Latin-1, one character per byte: an ASCII key is found in text and binary files alike. */
  bytes(where: string, bytes: Uint8Array): void {
    this.text(where, Buffer.from(bytes).toString('latin1'));
  }

  assertClean(): void {
    assert.ok(this.looked > 0, `${this.what}: nothing was looked at`);
    assert.deepEqual(this.found, [], `${this.what}: a key was found`);
  }
}

/** Files under a folder, any depth; nothing when it does not exist. Symbolic links are not followed. */
async function filesUnder(folder: vscode.Uri): Promise<vscode.Uri[]> {
  let entries: Array<[string, vscode.FileType]>;
  try {
    entries = await vscode.workspace.fs.readDirectory(folder);
  } catch {
    return [];
  }
  const files: vscode.Uri[] = [];
  for (const [name, type] of entries) {
    const uri = vscode.Uri.joinPath(folder, name);
    if (type & vscode.FileType.SymbolicLink) continue;
    if (type === vscode.FileType.Directory) files.push(...(await filesUnder(uri)));
    else if (type === vscode.FileType.File) files.push(uri);
  }
  return files;
}

/** Reads each file (but huge ones) into `search`; returns how many were too big to read. */
async function searchFiles(search: Search, files: vscode.Uri[]): Promise<number> {
  let skipped = 0;
  for (const file of files) {
    try {
      if ((await vscode.workspace.fs.stat(file)).size > MAX_FILE_BYTES) {
        skipped++;
        continue;
      }
      search.bytes(file.fsPath, await vscode.workspace.fs.readFile(file));
    } catch {
      // Deleted between listing and reading (a rotated log, a temporary file): nothing to search.
    }
  }
  return skipped;
}

async function setKey(key: string): Promise<void> {
  await vscode.commands.executeCommand('gateway.setApiKey', key);
}

async function lastAssistant(): Promise<AssistantTurn> {
  const turns = (await (await gatewayApi()).chat.current()).turns;
  const last = turns.at(-1);
  assert.equal(last?.role, 'assistant');
  return last;
}

describe('Secrets: no key anywhere after the run', function () {
  this.timeout(60_000);
  let sim: GatewaySimulator;
  let previousBaseUrl: string | undefined;
  /** Error texts the commands below returned to their caller. */
  const commandErrors: string[] = [];
  /** What each check looked at, printed once at the end. */
  const looked: string[] = [];

  before(async () => {
    previousBaseUrl = vscode.workspace.getConfiguration('gateway').inspect<string>('baseUrl')?.globalValue;
    // Jobs stay queued long enough for their status checks to be refused.
    sim = await startGatewaySimulator({
      chunkDelayMs: 1,
      validKeys: [TEST_KEY, FORBIDDEN_KEY],
      mediaTimings: { queuedMs: 60_000 },
    });
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('chat.model', 'testvendor/echo-model');
    await setSetting('media.model', 'testvendor/image-model');
    await setSetting('request.maxRetries', 0);
  });

  after(async () => {
    await setKey(TEST_KEY);
    await setSetting('request.maxRetries', undefined);
    await setSetting('media.model', undefined);
    await setSetting('chat.model', undefined);
    await setSetting('baseUrl', previousBaseUrl);
    await sim?.close();
    console.log(`[suite] Searched for ${KEYS.length} keys in: ${looked.join('; ')}`);
  });

  describe('paths where a key could leak', () => {
    afterEach(async () => {
      await setKey(TEST_KEY);
    });

    it("a key the gateway echoes in a 401 is scrubbed from the reply's error and the log", async () => {
      const api = await gatewayApi();
      await setKey(UNKNOWN_KEY);
      await api.chat.send('who am I?');
      const reply = await lastAssistant();
      assert.equal(reply.error?.status, 401);
      // The echo happened (so this is not vacuous) and was scrubbed.
      assert.match(reply.error?.message ?? '', /User not found for key \[redacted\]/);
      await logShows(
        /Chat request failed: .*User not found for key \[redacted\]/,
        'the failed request in the log',
      );
    });

    it('the logger scrubs a key handed to it raw: the current one by value, any other by its shape', async () => {
      const api = await gatewayApi();
      await setKey(UNKNOWN_KEY);
      // A blocked link is logged with its start: here, the key itself.
      await api.chatRouter.handle({ type: 'openLink', href: `x:${UNKNOWN_KEY}` });
      await api.chatRouter.handle({ type: 'openLink', href: `y:${SHAPED_KEY}` });
      const log = await logShows(/not allowed: y:\[redacted\]/, 'the blocked links in the log');
      assert.match(log, /not allowed: x:\[redacted\]/);
    });

    it("a media start refused with the key echoed: the command's error and the notification are clean", async () => {
      await setKey(FORBIDDEN_KEY);
      await assert.rejects(
        async () =>
          vscode.commands.executeCommand('gateway.generateMedia', { prompt: 'a fox that may not be drawn' }),
        (error: unknown) => {
          assert.ok(error instanceof Error);
          commandErrors.push(error.message);
          assert.match(error.message, /Key \[redacted\] is not allowed to use model/);
          return true;
        },
      );
      const shown = await waitFor(
        () => observed.notifications.find((n) => n.message.includes('is not allowed to use model')),
        'the error notification',
      );
      assert.match(shown.message, /Key \[redacted\]/);
    });

    it("a status check refused with the key echoed: the job's problem and the log are clean", async () => {
      const api = await gatewayApi();
      const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
        prompt: 'a fox checked with the wrong key',
      });
      try {
        await setKey(FORBIDDEN_KEY);
        await vscode.commands.executeCommand('gateway.refreshMediaJobs');
        await waitFor(
          () => api.media.model.get(id)?.lastProblem?.includes('403'),
          'the refused status check',
        );
        await logShows(
          /Status check of media job .* failed: .*Key \[redacted\] is not allowed to read media jobs/,
          'the refused check in the log',
        );
      } finally {
        await api.media.remove(id);
      }
    });
  });

  describe('where a key must not be', () => {
    it("settings: the user data folder's User and Machine files, the workspace folder, every setting's value", async () => {
      const userData = process.env.GATEWAY_TEST_USER_DATA;
      assert.ok(userData, 'the launcher passes GATEWAY_TEST_USER_DATA');
      const files = new Search('settings files');
      // User/ holds settings.json, keybindings, snippets, local history and the extension
      // storage; Machine/ holds the server's machine-scope settings. In the server build, the
      // state database and SecretStorage live in the browser, not here. On desktop,
      // User/globalStorage/state.vscdb holds both globalState and SecretStorage; secrets are
      // encrypted before they are written there, so the plain key must not appear in it either,
      // and it is searched like any other file.
      const userFiles: vscode.Uri[] = [];
      for (const scope of ['User', 'Machine'])
        userFiles.push(...(await filesUnder(vscode.Uri.joinPath(vscode.Uri.file(userData), scope))));
      const settingsJson = userFiles.find((f) => f.path.endsWith('/User/settings.json'));
      assert.ok(settingsJson, 'User/settings.json exists');
      // The tests wrote gateway settings there, so it is the file that matters.
      assert.match(
        new TextDecoder().decode(await vscode.workspace.fs.readFile(settingsJson)),
        /"gateway\.baseUrl"/,
      );
      const tooBig = await searchFiles(files, userFiles);

      // Workspace settings (.vscode/settings.json) and anything else in the opened folders.
      const workspaceFiles: vscode.Uri[] = [];
      for (const folder of vscode.workspace.workspaceFolders ?? [])
        workspaceFiles.push(...(await filesUnder(folder.uri)));
      if (vscode.workspace.workspaceFile?.scheme === 'file')
        workspaceFiles.push(vscode.workspace.workspaceFile);
      await searchFiles(files, workspaceFiles);

      // Every value in effect, as VS Code resolved it, and each of the extension's settings in every scope.
      const settings = new Search('settings values');
      settings.text('the whole configuration', JSON.stringify(vscode.workspace.getConfiguration()));
      const manifest = vscode.extensions.getExtension('gateway-ai.gateway-ai')!.packageJSON as {
        contributes: { configuration: { properties: Record<string, unknown> } };
      };
      const configuration = vscode.workspace.getConfiguration();
      for (const key of Object.keys(manifest.contributes.configuration.properties)) {
        settings.text(`setting ${key}`, JSON.stringify(configuration.inspect(key)));
      }

      looked.push(
        `${userFiles.length} User and Machine files (${tooBig} too big), ${workspaceFiles.length} workspace files, ${settings.looked} setting values`,
      );
      files.assertClean();
      settings.assertClean();
    });

    it('globalState and workspaceState: every key and value', async () => {
      const api = await gatewayApi();
      const state = new Search('extension state');
      const scopes: Array<[string, vscode.Memento]> = [
        ['globalState', api.context.globalState],
        ['workspaceState', api.context.workspaceState],
      ];
      const counts: string[] = [];
      for (const [name, memento] of scopes) {
        const keys = memento.keys();
        for (const key of keys) state.text(`${name} ${key}`, `${key} ${JSON.stringify(memento.get(key))}`);
        counts.push(`${keys.length} ${name} keys`);
      }
      looked.push(counts.join(', '));
      // The media jobs and recent models live in globalState; the extension keeps nothing per workspace.
      state.assertClean();
    });

    it("the extension's storage: every file under globalStorage and workspace storage", async () => {
      const api = await gatewayApi();
      const storage = new Search('extension storage');
      const files = await filesUnder(api.context.globalStorageUri);
      if (api.context.storageUri) files.push(...(await filesUnder(api.context.storageUri)));
      assert.ok(
        files.some((f) => f.path.includes('/conversations/')),
        'the stored conversations are among them',
      );
      const tooBig = await searchFiles(storage, files);
      looked.push(`${files.length} storage files (${tooBig} too big)`);
      storage.assertClean();
    });

    it('error text: stored replies, replies seen ending in an error, media jobs, command errors', async () => {
      const api = await gatewayApi();
      const errors = new Search('error text');
      // A fresh store reads what is on disk, as a new window would.
      const store = new ConversationStore(storageFolder(api.context.globalStorageUri, 'conversations'));
      let stored = 0;
      for (const summary of await store.list()) {
        const conversation = await store.load(summary.id);
        for (const turn of conversation?.turns ?? []) {
          if (turn.role === 'assistant' && turn.error) {
            stored++;
            errors.text(`stored reply in "${summary.title}"`, JSON.stringify(turn.error));
          }
        }
      }
      assert.ok(stored > 0, 'the stored conversations include failed replies');
      assert.ok(observed.turnErrors.length > 0, 'failed replies were seen during the run');
      for (const message of observed.turnErrors) errors.text('a reply that ended in an error', message);
      for (const job of api.media.model.all())
        errors.text(`media job ${job.id}`, JSON.stringify([job.error, job.lastProblem]));
      // Jobs that were cleared or removed during the run: their texts were recorded as they changed.
      assert.ok(observed.mediaJobTexts.size > 0, 'media job errors or problems were seen during the run');
      for (const text of observed.mediaJobTexts) errors.text('a media job error or problem', text);
      assert.ok(commandErrors.length > 0);
      for (const message of commandErrors) errors.text('a command error', message);
      looked.push(
        `${stored} stored reply errors, ${observed.turnErrors.length} reply errors seen, ${observed.mediaJobTexts.size} media job texts, ${commandErrors.length} command errors`,
      );
      errors.assertClean();
    });

    it("every message posted to a webview since the suite started, and the chat view's page", () => {
      assert.ok(observed.started, 'observation started before the first test');
      assert.equal(
        observed.chatViewResolvedEarly,
        false,
        'the chat view was resolved before observation began, so its first messages went unseen',
      );
      assert.ok(observed.windowObservable, 'webview panels could be observed');
      const messages = new Search('webview messages');
      for (const message of observed.webviewMessages)
        messages.text(`a message to the ${message.target}`, message.json);
      for (const page of observed.webviewPages) messages.text('the chat view page', page);
      const types = new Set(
        observed.webviewMessages.map((m) => (JSON.parse(m.json) as { type?: string }).type),
      );
      // The chat tests' traffic went through here: the state, streamed replies, failed replies.
      for (const type of ['init', 'turnAdded', 'turnDelta', 'turnUpdated'])
        assert.ok(types.has(type), `a "${type}" message was seen (seen: ${[...types].join(', ')})`);
      assert.ok(
        observed.webviewMessages.some((m) => m.json.includes('"status":"error"')),
        'failed replies were posted',
      );
      looked.push(
        `${observed.webviewMessages.length} webview messages, ${observed.webviewPages.length} chat view pages`,
      );
      messages.assertClean();
    });

    it('every notification shown since the suite started', () => {
      assert.ok(observed.windowObservable, 'notifications could be observed');
      const notifications = new Search('notifications');
      for (const n of observed.notifications)
        notifications.text(`a notification (${n.severity})`, `${n.message} ${n.items.join(' ')}`);
      assert.ok(
        observed.notifications.some((n) => n.severity === 'error'),
        'error notifications were seen',
      );
      looked.push(`${observed.notifications.length} notifications`);
      notifications.assertClean();
    });

    it("the log files: the extension's and the rest of this session's, with the requests in them", async () => {
      const api = await gatewayApi();
      const logs = new Search('log files');
      // logUri is <session logs>/<host>/<extension id>; the channel's file is in it, and VS Code's
      // own logs of this session are next to it, two levels up.
      const sessionLogs = vscode.Uri.joinPath(api.context.logUri, '..', '..');
      const files = await filesUnder(sessionLogs);
      assert.ok(
        files.some((f) => f.path.endsWith('/Gateway AI.log')),
        `the channel's log file is under ${sessionLogs.fsPath}`,
      );
      // The requests of the chat and media tests were logged: the log was written to, not just created.
      const log = await extensionLog();
      assert.match(log, /POST \S*\/v1\/chat\/completions → 200/);
      assert.match(log, /POST \S*\/v1\/media → 200/);
      const tooBig = await searchFiles(logs, files);
      looked.push(
        `${files.length} log files (${tooBig} too big; the extension's has ${log.split('\n').length} lines)`,
      );
      logs.assertClean();
    });
  });
});
