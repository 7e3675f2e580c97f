/**
 * The second window of the two-window storage test: loaded as `extensionTestsPath` by a second
 * workbench page on the same VS Code server (a second extension host, the same global storage).
 * It waits for the main suite's signal, then writes chats and media jobs while the first window
 * writes its own, adds a turn to the chat open there, says what it wrote, and stays until the
 * first window has checked (so it can still repair a write race it lost).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { newConversation, userTurn } from '../../src/core/chat/conversation';
import { createMediaJob } from '../../src/core/media/mediaJob';
import { gatewayApi, waitFor } from './helpers';

/** Chats and media jobs each window writes. */
export const WRITES = 25;

export async function run(): Promise<void> {
  const sync = process.env.GATEWAY_TEST_SYNC_DIR;
  if (!sync) return;
  const log = (line: string) => console.log(`[second window] ${line}`);
  try {
    // Activated and loaded before the signal, so the writing starts at once.
    const api = await gatewayApi();
    await api.media.load();
    await api.chatStore.list();
    writeFileSync(path.join(sync, 'second-ready'), '');
    await waitFor(() => existsSync(path.join(sync, 'go')), 'the go signal', 2 * 60_000);
    const { shared } = JSON.parse(readFileSync(path.join(sync, 'go'), 'utf8')) as { shared: string };
    const started = Date.now();
    const chats: string[] = [];
    const jobs: string[] = [];
    for (let i = 0; i < WRITES; i++) {
      const c = newConversation();
      c.title = `storage: second window ${i}`;
      c.turns.push(userTurn(c.title));
      chats.push(c.id);
      void api.chatStore.save(c, false);
      const id = `second-window-job-${i}`;
      jobs.push(id);
      api.media.model.add({
        ...createMediaJob({ id, prompt: `second ${i}`, model: 'x/y', status: 'completed' }, Date.now()),
        outputs: [{ kind: 'text', text: `result ${i}` }],
      });
      await new Promise((r) => setTimeout(r, Math.random() * 60));
    }
    const open = await api.chatStore.load(shared);
    if (open) {
      open.turns.push(userTurn('from the second window'));
      open.updatedAt = Date.now();
      await api.chatStore.save(open, false);
    } else log(`the shared chat ${shared} was not found`);
    await api.chatStore.flush();
    await api.media.flush();
    const finished = Date.now();
    writeFileSync(path.join(sync, 'second-done'), JSON.stringify({ chats, jobs, started, finished }));
    log(`wrote ${chats.length} chats and ${jobs.length} media jobs`);
    await waitFor(() => existsSync(path.join(sync, 'finish')), 'the first window to check', 5 * 60_000);
  } catch (error) {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    writeFileSync(path.join(sync, 'second-failed'), String(error));
  }
}
