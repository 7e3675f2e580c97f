/**
 * Checkpoints end to end inside VS Code, against the scripted model: a turn edits a file, runs an
 * allowed command that changes a second and creates a third, then answers; *Restore to here* on
 * its prompt puts all three back byte for byte, *Redo* forward again; the user's repository
 * (`.git`, `git status`) is byte-identical before and after; a folder that is no repository works
 * the same; and a snapshot of 20,000 files never holds up the turn's first request.
 *
 * The confirmations are modal dialogs: the test answers them as the user would, by the buttons
 * the extension offers, and checks what they listed.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseWebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { AssistantTurn, UserTurn, WebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { ToolCallRecord } from '../../src/core/agent/types';
import { parseHostMessage } from '../../src/core/protocol/chatProtocol';
import { gatewayApi, openChatView, sendPrompt, waitFor, withChatGateway } from './helpers';
import { observed } from './observed';
import { answerDialogs } from './restoreDialogs';

const FIXTURE = 'checkpoint-fixture';
/** Text a careless round-trip would change: CRLF, non-ASCII, no newline at the end. */
const EDITED_BYTES = Buffer.from('alpha\r\nbeta\r\ngamma é 😀\r\nno newline at the end', 'utf8');
const OTHER_BYTES = Buffer.from('config = 1\n', 'utf8');

function scripted(task: string, steps: unknown[]): string {
  return `${task}\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\``;
}

function rootPath(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite runs with a workspace folder');
  return folder.uri.fsPath;
}

const file = (relative: string) => path.join(rootPath(), ...relative.split('/'));
const read = (relative: string) =>
  fs.existsSync(file(relative)) ? fs.readFileSync(file(relative)) : undefined;

/** A command line running Node (the extension host's own binary) on a script. */
function nodeCommand(code: string): string {
  return `"${process.execPath}" -e ${JSON.stringify(code)}`;
}

/** Every file under a folder with its bytes' hash. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const full = path.join(d, name);
      if (fs.lstatSync(full).isDirectory()) walk(full);
      else out[path.relative(dir, full)] = createHash('sha256').update(fs.readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: rootPath(),
    env: {
      ...process.env,
      GIT_OPTIONAL_LOCKS: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
  }).toString();
}

async function fromView(message: WebviewMessage): Promise<void> {
  const parsed = parseWebviewMessage(JSON.parse(JSON.stringify(message)));
  assert.ok(parsed, `the protocol accepts ${message.type}`);
  await (await gatewayApi()).chatRouter.handle(parsed);
}

describe('Checkpoints: Restore to here and Redo, against a scripted model', function () {
  this.timeout(120_000);
  const gateway = withChatGateway();
  let postMark = 0;

  function waitForCall(name: string): Promise<{ turnId: string; call: ToolCallRecord }> {
    return waitFor(
      () => {
        for (const m of observed.webviewMessages.slice(postMark)) {
          if (m.target !== 'chat view') continue;
          const parsed = parseHostMessage(JSON.parse(m.json));
          if (parsed?.type !== 'agentStep') continue;
          const call = parsed.step.calls.find((c) => c.name === name && c.state === 'awaitingApproval');
          if (call) return { turnId: parsed.turnId, call };
        }
        return undefined;
      },
      `a ${name} call awaiting approval`,
      45_000,
    );
  }

  /** Sends a prompt; `finished` resolves with the turn once the loop has ended it. */
  function send(text: string): Promise<{ finished: Promise<AssistantTurn> }> {
    return sendPrompt(text);
  }

  async function prompt(): Promise<UserTurn> {
    const turns = (await (await gatewayApi()).chat.current()).turns;
    const user = turns.filter((t): t is UserTurn => t.role === 'user').at(-1);
    assert.ok(user);
    return user;
  }

  before(async () => {
    await openChatView();
    // VS Code's own Git extension would refresh the repository's index behind the test's back.
    await vscode.workspace
      .getConfiguration('git')
      .update('enabled', false, vscode.ConfigurationTarget.Global);
  });

  beforeEach(async () => {
    fs.rmSync(file(FIXTURE), { recursive: true, force: true });
    fs.mkdirSync(file(FIXTURE), { recursive: true });
    fs.writeFileSync(file(`${FIXTURE}/edited.txt`), EDITED_BYTES);
    fs.writeFileSync(file(`${FIXTURE}/other.txt`), OTHER_BYTES);
    await vscode.commands.executeCommand('gateway.newChat');
    postMark = observed.webviewMessages.length;
  });

  after(async () => {
    fs.rmSync(file(FIXTURE), { recursive: true, force: true });
    fs.rmSync(file('.git'), { recursive: true, force: true });
    fs.rmSync(file('many-files'), { recursive: true, force: true });
    // The stores hold tens of thousands of objects after the 20,000-file snapshot: later suites
    // (the secrets sweep reads every file of the extension's storage) need not wade through them.
    const storage = (await gatewayApi()).context.globalStorageUri.fsPath;
    fs.rmSync(path.join(storage, 'checkpoints'), { recursive: true, force: true });
    await vscode.workspace
      .getConfiguration('git')
      .update('enabled', undefined, vscode.ConfigurationTarget.Global);
  });

  /** The scripted turn: an edit, a command that changes a file and creates one, an answer. */
  async function scriptedTurn(): Promise<{ prompt: UserTurn; after: Record<string, Buffer | undefined> }> {
    // The file was edited in an editor by an earlier test, then written on disk by a restore and by
    // this test's setup. The agent edits the open document, and VS Code does not always read a file
    // written behind its back again (a known gap of restores, in the README): revert it as a user
    // would, then wait until it shows what is on disk.
    const edited = file(`${FIXTURE}/edited.txt`);
    const stale = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === edited);
    if (stale) {
      await vscode.window.showTextDocument(stale);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await waitFor(() => {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === edited);
      return !open || (!open.isDirty && open.getText() === EDITED_BYTES.toString('utf8'));
    }, 'the open editor of edited.txt to show what is on disk');
    const changeAndCreate = nodeCommand(
      `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(file(`${FIXTURE}/other.txt`))}, 'config = 2\\n'); fs.writeFileSync(${JSON.stringify(file(`${FIXTURE}/created.bin`))}, Buffer.from([1, 2, 3, 0, 255]))`,
    );
    const { finished } = await send(
      scripted('Change the settings.', [
        {
          calls: [
            {
              name: 'edit_file',
              arguments: { path: `${FIXTURE}/edited.txt`, edits: [{ search: 'alpha', replace: 'ALPHA' }] },
            },
          ],
        },
        { calls: [{ name: 'run_command', arguments: { command: changeAndCreate } }] },
        { text: 'Done.' },
      ]),
    );
    const edit = await waitForCall('edit_file');
    await fromView({ type: 'toolDecision', turnId: edit.turnId, callId: edit.call.id, choice: 'once' });
    const command = await waitForCall('run_command');
    const confirmation = command.call.confirmation;
    assert.equal(confirmation?.kind, 'command');
    await fromView({ type: 'toolDecision', turnId: command.turnId, callId: command.call.id, choice: 'once' });
    const turn = await finished;
    assert.equal(turn.status, 'complete', turn.error?.message);
    const user = await waitFor(async () => {
      const p = await prompt();
      return p.checkpoint ? p : undefined;
    }, 'the prompt to have its checkpoint');
    const after = {
      edited: read(`${FIXTURE}/edited.txt`),
      other: read(`${FIXTURE}/other.txt`),
      created: read(`${FIXTURE}/created.bin`),
    };
    assert.notDeepEqual(after.edited, EDITED_BYTES);
    assert.equal(after.other?.toString(), 'config = 2\n');
    assert.deepEqual(after.created, Buffer.from([1, 2, 3, 0, 255]));
    return { prompt: user, after };
  }

  async function restoreAndRedo(
    user: UserTurn,
    after: Record<string, Buffer | undefined>,
    onRestored: () => void = () => undefined,
  ): Promise<void> {
    const dialogs = answerDialogs((d) => (d.items.includes('Restore Files') ? 'Restore Files' : 'Redo'));
    try {
      await fromView({ type: 'restoreCheckpoint', turnId: user.id });
      const asked = dialogs.shown[0];
      assert.ok(asked, 'a confirmation was shown');
      assert.match(asked.message, /Restore 3 files/);
      assert.match(asked.detail, /changed back: checkpoint-fixture\/edited\.txt/);
      assert.match(asked.detail, /changed back: checkpoint-fixture\/other\.txt/);
      assert.match(asked.detail, /removed: checkpoint-fixture\/created\.bin/);
      assert.ok(asked.items.includes('Restore Files and Conversation'));
      assert.deepEqual(read(`${FIXTURE}/edited.txt`), EDITED_BYTES);
      assert.deepEqual(read(`${FIXTURE}/other.txt`), OTHER_BYTES);
      assert.equal(read(`${FIXTURE}/created.bin`), undefined);
      const restored = await prompt();
      assert.ok(restored.redoCheckpoint, 'the prompt offers Redo');
      onRestored();

      await fromView({ type: 'redoCheckpoint', turnId: user.id });
      assert.match(dialogs.shown[1]?.message ?? '', /Redo 3 files/);
      assert.deepEqual(read(`${FIXTURE}/edited.txt`), after.edited);
      assert.deepEqual(read(`${FIXTURE}/other.txt`), after.other);
      assert.deepEqual(read(`${FIXTURE}/created.bin`), after.created);
      assert.equal((await prompt()).redoCheckpoint, undefined);
    } finally {
      dialogs.dispose();
    }
  }

  it('in a folder that is no git repository: restores the three files exactly, and Redo re-applies them', async () => {
    assert.ok(!fs.existsSync(file('.git')));
    const { prompt: user, after } = await scriptedTurn();
    await restoreAndRedo(user, after);
    assert.ok(!fs.existsSync(file('.git')), 'no repository was made in the workspace');
  });

  it("in a git repository: the same, and the user's .git and git status are byte-identical", async () => {
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(file('.gitignore'), 'many-files/\n');
    git('add', '.gitignore', FIXTURE);
    git('commit', '-qm', 'first');
    fs.writeFileSync(file(`${FIXTURE}/other.txt`), 'stashed\n');
    git('stash', '-q');
    fs.writeFileSync(file(`${FIXTURE}/staged.txt`), 'staged\n');
    git('add', `${FIXTURE}/staged.txt`);
    const status = git('status', '--porcelain');
    const dotGit = fingerprint(file('.git'));

    const { prompt: user, after } = await scriptedTurn();
    // Restored, the files are as before the turn, and so is what git says of them.
    await restoreAndRedo(user, after, () => assert.equal(git('status', '--porcelain'), status));

    assert.deepEqual(fingerprint(file('.git')), dotGit);
    assert.match(git('stash', 'list'), /stash@\{0\}/);
    assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD').trim(), 'main');
  });

  it('Restore Files and Conversation also removes the turns after the prompt', async () => {
    const { prompt: user } = await scriptedTurn();
    const dialogs = answerDialogs((d) =>
      d.items.includes('Restore Files and Conversation') ? d.items[1] : undefined,
    );
    try {
      await fromView({ type: 'restoreCheckpoint', turnId: user.id });
    } finally {
      dialogs.dispose();
    }
    const turns = (await (await gatewayApi()).chat.current()).turns;
    assert.equal(turns.at(-1)?.id, user.id, 'the prompt is the last turn');
    assert.deepEqual(read(`${FIXTURE}/edited.txt`), EDITED_BYTES);
  });

  it('a snapshot of 20,000 small files keeps to its budget and never holds up the first request', async () => {
    const many = file('many-files');
    fs.rmSync(file('.gitignore'), { force: true });
    for (let d = 0; d < 100; d++) {
      const dir = path.join(many, `d${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 200; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), `file ${d}/${f}\n`);
    }
    const requestMark = gateway.sim.requests.length;
    const sent = Date.now();
    const { finished } = await send(
      scripted('Create a file.', [
        { calls: [{ name: 'create_file', arguments: { path: `${FIXTURE}/new.txt`, content: 'new\n' } }] },
        { text: 'Created.' },
      ]),
    );
    const firstRequest = await waitFor(
      () => gateway.sim.requests.slice(requestMark).find((r) => r.agentStep !== undefined),
      'the first request',
      20_000,
    );
    const create = await waitForCall('create_file');
    await fromView({ type: 'toolDecision', turnId: create.turnId, callId: create.call.id, choice: 'once' });
    await finished;
    const user = await waitFor(
      async () => {
        const p = await prompt();
        return p.checkpoint || p.checkpointNote ? p : undefined;
      },
      'the snapshot to end or say why not',
      30_000,
    );
    const snapshotEnded = Date.now() - sent;
    const firstRequestMs = firstRequest.time - sent;
    console.log(
      `[suite]     20,000 files: first request ${firstRequestMs} ms after send; snapshot ${user.checkpoint ? 'taken' : `not taken (${user.checkpointNote})`}, ended by ${snapshotEnded} ms`,
    );
    assert.ok(firstRequestMs < 2_000, `the first request left ${firstRequestMs} ms after send`);
    // Within the budget (10 s) and its slack, or it said it could not.
    if (user.checkpoint) assert.ok(snapshotEnded < 15_000, `${snapshotEnded} ms`);
    else assert.match(user.checkpointNote ?? '', /budget/);

    // What a snapshot out of time had hashed is kept: the next prompt's goes on from there.
    postMark = observed.webviewMessages.length;
    const again = Date.now();
    const next = await send(
      scripted('Create another.', [
        { calls: [{ name: 'create_file', arguments: { path: `${FIXTURE}/newer.txt`, content: 'newer\n' } }] },
        { text: 'Created.' },
      ]),
    );
    const second = await waitForCall('create_file');
    await fromView({ type: 'toolDecision', turnId: second.turnId, callId: second.call.id, choice: 'once' });
    await next.finished;
    const nextPrompt = await waitFor(
      async () => {
        const p = await prompt();
        return p.id !== user.id && (p.checkpoint || p.checkpointNote) ? p : undefined;
      },
      'the next snapshot to end',
      30_000,
    );
    console.log(
      `[suite]     the next prompt: snapshot ${nextPrompt.checkpoint ? 'taken' : `not taken (${nextPrompt.checkpointNote})`}, ended by ${Date.now() - again} ms`,
    );
  });
});
