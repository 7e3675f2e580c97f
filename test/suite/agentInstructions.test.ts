/**
 * The project's instruction files and the spend cap, in the panel, against the simulator's
 * scripted model: a workspace with `AGENTS.md`, `.github/copilot-instructions.md`, a `.clinerules/`
 * rule scoped to `src/**\/*.ts` and a `.continue/rules/` rule with `globs`. A first prompt carries
 * only the always-on files (read from what the simulator received); reading a matching `.ts` file
 * adds the scoped rules to the next request; the turn's chips name what went. Then a per-turn cap
 * below the scripted turn's cost: the turn pauses before the request that would pass it, shows
 * what was spent, and goes on once allowed.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseHostMessage, parseWebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { AssistantTurn, HostMessage, WebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { RecordedRequest } from '../simulator';
import {
  answerInformation,
  gatewayApi,
  openChatView,
  sendPrompt,
  setSetting,
  waitFor,
  withChatGateway,
} from './helpers';
import { observed } from './observed';

const FILES: Record<string, string> = {
  'AGENTS.md': 'HOUSE-RULE-AGENTS: indent with tabs.',
  '.github/copilot-instructions.md': 'HOUSE-RULE-COPILOT: write tests first.',
  '.clinerules/typescript.md':
    '---\npaths:\n  - "src/**/*.ts"\n---\nHOUSE-RULE-CLINE-TS: no default exports.',
  '.continue/rules/ts.md':
    '---\nname: TypeScript\nglobs: "**/*.ts"\nalwaysApply: false\ndescription: For TypeScript\n---\nHOUSE-RULE-CONTINUE-TS: prefer type imports.',
  'src/instructions-fixture/main.ts': 'export const answer = 42;\n',
};
const MADE = [
  'AGENTS.md',
  '.github/copilot-instructions.md',
  '.clinerules',
  '.continue',
  'src/instructions-fixture',
];

function uri(relative: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite runs with a workspace folder');
  return vscode.Uri.joinPath(folder.uri, ...relative.split('/'));
}

function scripted(task: string, steps: unknown[]): string {
  return `${task}\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\``;
}

/** The system message of a recorded chat request. */
function systemOf(request: RecordedRequest): string {
  const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const system = messages.find((m) => m.role === 'system');
  return typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? '');
}

/** The turns the chat view was sent since `mark`, as the page parses them. */
function turnPosts(mark: number): AssistantTurn[] {
  return observed.webviewMessages
    .slice(mark)
    .filter((m) => m.target === 'chat view')
    .map((m): HostMessage | undefined => parseHostMessage(JSON.parse(m.json)))
    .flatMap((m) => (m?.type === 'turnUpdated' && m.turn.role === 'assistant' ? [m.turn] : []));
}

async function fromView(message: WebviewMessage): Promise<void> {
  const parsed = parseWebviewMessage(JSON.parse(JSON.stringify(message)));
  assert.ok(parsed, `the protocol accepts ${message.type}`);
  await (await gatewayApi()).chatRouter.handle(parsed);
}

/** Opens the chat view and writes the suite's files into the workspace. */
async function openViewWith(files: Record<string, string>): Promise<void> {
  await openChatView();
  for (const [path, text] of Object.entries(files))
    await vscode.workspace.fs.writeFile(uri(path), new TextEncoder().encode(text));
}

describe('Agent: project instruction files and spend caps', function () {
  this.timeout(60_000);
  const gateway = withChatGateway();
  let postMark = 0;
  let requestMark = 0;

  async function run(prompt: string): Promise<{ finished: Promise<AssistantTurn> }> {
    return sendPrompt(prompt);
  }

  const scriptedRequests = () =>
    gateway.sim.requests.slice(requestMark).filter((r) => r.agentStep !== undefined);

  before(() => openViewWith(FILES));

  beforeEach(async () => {
    await vscode.commands.executeCommand('gateway.newChat');
    postMark = observed.webviewMessages.length;
    requestMark = gateway.sim.requests.length;
  });

  after(async () => {
    await setSetting('agent.maxTurnCost', undefined);
    for (const path of MADE)
      await vscode.workspace.fs.delete(uri(path), { recursive: true }).then(undefined, () => undefined);
  });

  it('a first prompt carries the always-on files only; reading a matching .ts file adds the scoped rules', async () => {
    const { finished } = await run(
      scripted('Look at the answer.', [
        { calls: [{ name: 'read_file', arguments: { path: 'src/instructions-fixture/main.ts' } }] },
        { text: 'It is 42.' },
      ]),
    );
    const turn = await finished;
    assert.equal(turn.status, 'complete', turn.error?.message);
    const [first, second] = scriptedRequests();
    assert.ok(first && second, 'two scripted requests');

    const firstSystem = systemOf(first);
    assert.match(firstSystem, /HOUSE-RULE-AGENTS/);
    assert.match(firstSystem, /HOUSE-RULE-COPILOT/);
    assert.doesNotMatch(firstSystem, /HOUSE-RULE-CLINE-TS|HOUSE-RULE-CONTINUE-TS/);
    // Our own prompt comes first; the project's instructions follow it, delimited.
    assert.ok(firstSystem.indexOf('You are a coding agent') < firstSystem.indexOf('<project-instructions>'));

    const secondSystem = systemOf(second);
    assert.match(secondSystem, /HOUSE-RULE-CLINE-TS/);
    assert.match(secondSystem, /HOUSE-RULE-CONTINUE-TS/);
    assert.match(secondSystem, /HOUSE-RULE-AGENTS/);

    // The chat shows which files went: first the always-on ones, then the scoped ones too.
    const shown = (t: AssistantTurn | undefined) =>
      (t?.instructions ?? []).map((c) => `${c.path}:${c.reason}`);
    const posts = turnPosts(postMark).filter((t) => t.id === turn.id);
    assert.ok(
      posts.some(
        (t) =>
          JSON.stringify(shown(t)) ===
          JSON.stringify(['AGENTS.md:always', '.github/copilot-instructions.md:always']),
      ),
      JSON.stringify(posts.map(shown)),
    );
    assert.deepEqual(shown(turn), [
      'AGENTS.md:always',
      '.github/copilot-instructions.md:always',
      '.clinerules/typescript.md:matched',
      '.continue/rules/ts.md:matched',
    ]);
    // The stored turn keeps them.
    const stored = (await (await gatewayApi()).chat.current()).turns.find((t) => t.id === turn.id);
    assert.deepEqual(shown(stored?.role === 'assistant' ? stored : undefined), shown(turn));
  });

  it('with a per-turn cap below the turn’s cost, pauses before the request that would pass it, and goes on once allowed', async () => {
    // The simulator prices each reply from its tokens (about a millionth of a dollar): a cap of
    // a billionth is passed by the second request.
    await setSetting('agent.maxTurnCost', 1e-9);
    try {
      const { finished } = await run(
        scripted('Read twice.', [
          { calls: [{ name: 'read_file', arguments: { path: 'src/instructions-fixture/main.ts' } }] },
          { text: 'Read it.' },
        ]),
      );
      const paused = await waitFor(
        () => turnPosts(postMark).find((t) => t.agent?.pause !== undefined),
        'the turn to pause at its cap',
      );
      // Paused before the second request: only the first went.
      assert.equal(scriptedRequests().length, 1);
      const pause = paused.agent?.pause;
      assert.equal(pause?.kind, 'turnCost');
      assert.equal(pause?.cap, 1e-9);
      assert.ok((pause?.spent ?? 0) > 0 && pause?.spent === paused.agent?.cost, JSON.stringify(paused.agent));
      assert.equal(paused.agent?.costCap, 1e-9, 'the counter shows the cost against the cap');
      await fromView({ type: 'agentPauseDecision', turnId: paused.id, choice: 'continue' });
      const turn = await finished;
      assert.equal(turn.status, 'complete', turn.error?.message);
      assert.equal(scriptedRequests().length, 2);
      assert.equal(turn.content, 'Read it.');
    } finally {
      await setSetting('agent.maxTurnCost', undefined);
    }
  });

  it('stopping at the cap ends the turn and says what was spent', async () => {
    await setSetting('agent.maxTurnCost', 1e-9);
    try {
      const { finished } = await run(
        scripted('Read once more.', [
          { calls: [{ name: 'read_file', arguments: { path: 'src/instructions-fixture/main.ts' } }] },
          { text: 'Never sent.' },
        ]),
      );
      const paused = await waitFor(
        () => turnPosts(postMark).find((t) => t.agent?.pause !== undefined),
        'the turn to pause at its cap',
      );
      await fromView({ type: 'agentPauseDecision', turnId: paused.id, choice: 'stop' });
      const turn = await finished;
      assert.equal(scriptedRequests().length, 1);
      assert.match(turn.error?.message ?? '', /gateway\.agent\.maxTurnCost/);
    } finally {
      await setSetting('agent.maxTurnCost', undefined);
    }
  });
  it('an instruction file or rules folder that links outside the workspace is not read', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'instructions-outside-'));
    writeFileSync(path.join(outside, 'id_rsa'), 'LEAKED-PRIVATE-KEY\n');
    writeFileSync(path.join(outside, 'notes.md'), 'LEAKED-RULE-TEXT\n');
    writeFileSync(path.join(outside, 'environ'), 'LEAKED-ENVIRONMENT\n');
    // A repository's links: a rules folder to a folder of secrets, CLAUDE.md to a file outside.
    mkdirSync(uri('.roo').fsPath, { recursive: true });
    symlinkSync(outside, uri('.roo/rules').fsPath);
    symlinkSync(path.join(outside, 'environ'), uri('CLAUDE.md').fsPath);
    try {
      const { finished } = await run(scripted('Say hi.', [{ text: 'Hi.' }]));
      const turn = await finished;
      assert.equal(turn.status, 'complete', turn.error?.message);
      const [first] = scriptedRequests();
      assert.ok(first, 'a scripted request');
      const system = systemOf(first);
      assert.match(system, /HOUSE-RULE-AGENTS/, 'the files inside the workspace still go');
      assert.doesNotMatch(system, /LEAKED-/);
      assert.ok(!(turn.instructions ?? []).some((c) => /^(\.roo|CLAUDE)/.test(c.path)));
    } finally {
      rmSync(uri('.roo').fsPath, { recursive: true, force: true });
      rmSync(uri('CLAUDE.md').fsPath, { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

/** The tool names a recorded request offered. */
function toolsOf(request: RecordedRequest): string[] {
  const tools = (request.body as { tools?: Array<{ function?: { name?: string } }> }).tools ?? [];
  return tools.flatMap((t) => (t.function?.name ? [t.function.name] : []));
}

/** The last user message of a recorded request. */
function promptOf(request: RecordedRequest): string {
  const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const prompt = messages.filter((m) => m.role === 'user').pop();
  return typeof prompt?.content === 'string' ? prompt.content : JSON.stringify(prompt?.content ?? '');
}

const AGENT_FILES: Record<string, string> = {
  '.gateway/agents/reviewer.agent.md':
    '---\nname: Reviewer\ndescription: Reads and reports\ntools: [read_file, list_files]\nmodel: openai/gpt-4o-mini\nmaxSteps: 3\n---\nAGENT-RULE-REVIEWER: report, never edit.\n',
  '.github/agents/broken.agent.md':
    '---\nname: "Broken \u202E[x](command:workbench.action.reloadWindow)"\ntools: [read_file, deploy_prod]\nautoApprove: true\nmodel: testvendor/text-only\n---\nAGENT-RULE-BROKEN\n',
  // Its body alone is over the 12,000-token budget (about four characters a token).
  '.gateway/agents/long.agent.md': `---\nname: Long\n---\nAGENT-RULE-LONG ${'words '.repeat(9_000)}LONG-TAIL\n`,
  'AGENTS.md': 'HOUSE-RULE-AGENTS: indent with tabs.',
  'modes-fixture.txt': 'MODES-FIXTURE\n',
};
/** Tools that change nothing (ours); Plan and Ask offer no other. */
const READ_ONLY_TOOLS = new Set(['read_file', 'list_files', 'search_text', 'get_problems']);

describe('Modes and custom agents', function () {
  this.timeout(60_000);
  const gateway = withChatGateway();
  let postMark = 0;
  let requestMark = 0;
  const scriptedRequests = () =>
    gateway.sim.requests.slice(requestMark).filter((r) => r.agentStep !== undefined);
  const modePosts = () =>
    observed.webviewMessages
      .slice(postMark)
      .filter((m) => m.target === 'chat view')
      .map((m): HostMessage | undefined => parseHostMessage(JSON.parse(m.json)))
      .flatMap((m) => (m?.type === 'modes' ? [m] : []));

  async function run(prompt: string): Promise<AssistantTurn> {
    return (await sendPrompt(prompt)).finished;
  }

  before(() => openViewWith(AGENT_FILES));

  beforeEach(async () => {
    await vscode.commands.executeCommand('gateway.newChat');
    postMark = observed.webviewMessages.length;
    requestMark = gateway.sim.requests.length;
  });

  after(async () => {
    for (const path of ['.gateway', '.github/agents', 'AGENTS.md', 'modes-fixture.txt'])
      await vscode.workspace.fs.delete(uri(path), { recursive: true }).then(undefined, () => undefined);
  });

  it('Plan offers only tools that change nothing; its plan, handed over in one click, runs in Agent mode', async () => {
    await fromView({ type: 'setMode', mode: 'plan' });
    const picked = await waitFor(
      () => modePosts().find((m) => m.current === 'plan'),
      'the picker to show Plan for this chat',
    );
    assert.deepEqual(
      picked.options.filter((o) => !o.custom).map((o) => o.id),
      ['agent', 'plan', 'ask'],
    );
    // The plan carries the next turn's script; its backticks are escaped inside this script (and
    // it has no {{results}}, which the simulator would fill in as it writes the plan).
    const plan = `1. Read modes-fixture.txt.\n\`\`\`sim-agent\n${JSON.stringify([
      { calls: [{ name: 'read_file', arguments: { path: 'modes-fixture.txt' } }] },
      { text: 'Carried out.' },
    ])}\n\`\`\``;
    const steps = JSON.stringify([
      { calls: [{ name: 'read_file', arguments: { path: 'modes-fixture.txt' } }] },
      { text: plan },
    ]).replace(/`/g, '\\u0060');
    const planned = await run(`Plan a look at the fixture.\n\`\`\`sim-agent\n${steps}\n\`\`\``);
    assert.equal(planned.status, 'complete', planned.error?.message);
    assert.equal(planned.plan, true, 'a Plan answer is marked so the view offers the hand-off');
    const planRequests = scriptedRequests();
    assert.equal(planRequests.length, 2);
    for (const request of planRequests) {
      const offered = toolsOf(request);
      assert.ok(offered.includes('read_file'), JSON.stringify(offered));
      for (const name of offered) assert.ok(READ_ONLY_TOOLS.has(name), `Plan offered ${name}`);
      assert.match(systemOf(request), /Plan mode/);
    }

    requestMark = gateway.sim.requests.length;
    const api = await gatewayApi();
    const handed = new Promise<AssistantTurn>((resolve) => {
      const listener = api.chat.onDidFinishTurn((turn) => {
        listener.dispose();
        resolve(turn);
      });
    });
    await fromView({ type: 'runPlan', turnId: planned.id });
    const done = await handed;
    assert.equal(done.status, 'complete', done.error?.message);
    assert.equal(done.plan, undefined);
    assert.equal(done.content, 'Carried out.');
    assert.deepEqual(
      done.steps?.flatMap((step) => step.calls.map((c) => `${c.name}:${c.state}`)),
      ['read_file:done'],
    );
    const [first] = scriptedRequests();
    assert.ok(first, 'the hand-off went to the gateway');
    assert.match(promptOf(first), /^Carry out this plan\.\n\n1\. Read modes-fixture\.txt\./);
    assert.ok(toolsOf(first).includes('edit_file'), 'Agent mode offers the tools that change things');
    assert.doesNotMatch(systemOf(first), /Plan mode/);
    assert.equal((await api.chat.current()).mode, undefined, 'the chat is in Agent mode now');
    await waitFor(() => modePosts().find((m) => m.current === 'agent'), 'the picker to show Agent');
  });

  it("a custom agent's tool list and accepted model are what the gateway gets; a bad file is shown, not fatal", async () => {
    const reviewer = 'custom:.gateway/agents/reviewer.agent.md';
    const broken = 'custom:.github/agents/broken.agent.md';
    const asked = answerInformation(/workspace agent "Reviewer"/, 'Use');
    try {
      await fromView({ type: 'setMode', mode: reviewer });
    } finally {
      asked.dispose();
    }
    assert.equal(asked.shown.length, 1, 'the first use of the agent’s model is asked about');
    assert.match(asked.shown[0].message, /openai\/gpt-4o-mini/);
    const state = await waitFor(
      () => modePosts().find((m) => m.current === reviewer),
      'the picker to show the custom agent',
    );
    const shown = state.options.find((o) => o.id === broken);
    assert.ok(shown, JSON.stringify(state.options));
    assert.doesNotMatch(shown.label, /\u202E|\]\(/, 'the name is shown inert');
    assert.match(shown.warning ?? '', /deploy_prod/);
    assert.match(shown.warning ?? '', /autoApprove/);

    const turn = await run(
      scripted('Review the fixture.', [
        { calls: [{ name: 'read_file', arguments: { path: 'modes-fixture.txt' } }] },
        { text: 'Reviewed.' },
      ]),
    );
    assert.equal(turn.status, 'complete', turn.error?.message);
    const requests = scriptedRequests();
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.deepEqual(toolsOf(request).sort(), ['list_files', 'read_file']);
      assert.equal((request.body as { model?: string }).model, 'openai/gpt-4o-mini');
      assert.match(systemOf(request), /AGENT-RULE-REVIEWER/);
    }

    // The broken agent: its model is declined, its unknown tool ignored, its autoApprove refused.
    requestMark = gateway.sim.requests.length;
    const declined = answerInformation(/workspace agent "Broken/, 'Keep');
    try {
      await fromView({ type: 'setMode', mode: broken });
    } finally {
      declined.dispose();
    }
    const second = await run(scripted('Say hi.', [{ text: 'Hi.' }]));
    assert.equal(second.status, 'complete', second.error?.message);
    const [request] = scriptedRequests();
    assert.equal((request.body as { model?: string }).model, 'testvendor/echo-model');
    assert.deepEqual(toolsOf(request), ['read_file']);
  });

  it("an agent file's instructions count in the instruction budget: past it, they are cut and AGENTS.md is left out, both said", async () => {
    await fromView({ type: 'setMode', mode: 'custom:.gateway/agents/long.agent.md' });
    const turn = await run(scripted('Say hi.', [{ text: 'Hi.' }]));
    assert.equal(turn.status, 'complete', turn.error?.message);
    const [request] = scriptedRequests();
    const system = systemOf(request);
    // (Checked with `includes`: a failing `match` would print the whole 48 KB prompt.)
    const has = (text: string) => system.includes(text);
    assert.ok(has('AGENT-RULE-LONG'), 'the agent file went');
    assert.ok(has('[… cut here: the agent file is over the instruction token budget.]'), 'its cut is marked');
    assert.ok(!has('LONG-TAIL'), 'its end did not go');
    assert.ok(!has('HOUSE-RULE-AGENTS'), 'AGENTS.md did not go');
    assert.ok(
      has('(Left out, over the token budget: "AGENTS.md".)'),
      'the model is told AGENTS.md was left out',
    );
    assert.deepEqual(
      turn.instructions?.map((c) => `${c.path}:${c.dropped === true}`),
      ['AGENTS.md:true'],
      'the chip says AGENTS.md was left out',
    );
  });
});
