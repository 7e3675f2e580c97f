import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { DIALECT_MODELS, SIM_DIALECTS } from '../simulator/dialectModes';
import type { SimDialect } from '../simulator/dialectModes';
import { gatewayApi, openChatView, TEST_KEY } from './helpers';
import {
  assertReadFile,
  assertTokensShown,
  deleteAgentFile,
  imageJob,
  readFileTurn,
  rememberSettings,
  turnFor,
  useGateway,
  writeAgentFile,
} from './gatewayTurns';

/** The chat model a user of each kind of gateway picks: its own id, as the gateway lists it. */
const CHAT_MODEL: Record<SimDialect, string> = {
  'strict-openai': 'gpt-4o',
  litellm: 'claude-sonnet',
  local: 'llama3.2:3b',
};

/**
 * The simulator as other kinds of gateway answer (strict OpenAI, LiteLLM's proxy, a local server):
 * for each, the picker lists the gateway's own ids, a chat shows its tokens, an agent turn reads a
 * file (strict mode refuses any field OpenAI's API does not take), and an image is made where the
 * gateway makes them.
 */
describe('Gateway modes: strict OpenAI, LiteLLM, local server', function () {
  this.timeout(90_000);
  let settings: { restore(): Promise<void> };

  before(async () => {
    settings = rememberSettings();
    await openChatView();
    await writeAgentFile();
  });

  after(async () => {
    await settings?.restore();
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await deleteAgentFile();
  });

  for (const mode of SIM_DIALECTS) {
    describe(mode, function () {
      let sim: GatewaySimulator;
      const model = CHAT_MODEL[mode];

      before(async () => {
        sim = await startGatewaySimulator({ dialect: mode, chunkDelayMs: 1 });
        await useGateway({ baseUrl: sim.baseUrl, key: mode === 'local' ? undefined : TEST_KEY, model });
      });
      after(async () => {
        await sim?.close();
      });

      it('the picker lists the gateway’s own ids', async () => {
        const { catalog } = (await gatewayApi()).catalog;
        const models = await catalog.refresh();
        assert.equal(catalog.source, 'gateway', 'the list came from the gateway');
        const ids = models.map((m) => m.id);
        for (const served of DIALECT_MODELS[mode].filter((m) => m.mode === 'chat'))
          assert.ok(ids.includes(served.id), `${served.id} in ${ids.join(', ')}`);
        for (const id of ids) assert.doesNotMatch(id, /\//, 'ids without a slash');
        assert.ok(
          sim.requests.some((r) => r.path.endsWith('/models')),
          'the picker asked the gateway',
        );
      });

      it('a chat shows its tokens', async () => {
        const mark = sim.requests.length;
        const turn = await turnFor(`Hello, ${mode}`);
        await assertTokensShown(turn);
        const chats = sim.requests.slice(mark).filter((r) => r.path.endsWith('/chat/completions'));
        assert.equal((chats.at(-1)?.body as { model?: string }).model, model);
      });

      it('an agent turn reads a file', async () => {
        await vscode.commands.executeCommand('gateway.newChat');
        const mark = sim.requests.length;
        const turn = await readFileTurn();
        assertReadFile(turn, sim.requests.slice(mark));
      });

      if (DIALECT_MODELS[mode].some((m) => m.mode === 'image_generation'))
        it('an image with the gateway’s own id', async () => {
          const mark = sim.requests.length;
          const job = await imageJob('gpt-image-1', `a square from ${mode}`);
          assert.equal(job.status, 'completed', `${job.status}: ${job.error ?? ''}`);
          const posted = sim.requests.slice(mark).filter((r) => r.path.endsWith('/images/generations'));
          assert.equal(posted.length, 1);
          assert.equal(job.outputs.length, 1);
        });
    });
  }
});
