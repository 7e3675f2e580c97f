/**
 * Mocha wiring shared by the webview test files: one browser per file, a fresh page per test
 * (already past its `ready` message).
 */
import { launchChatHarness } from './harness';
import type { ChatHarness, ChatPage, OpenPageOptions } from './harness';

export interface ChatPageFixture {
  /** The current test's page. */
  readonly chat: ChatPage;
  /** A second page, e.g. with saved state; closed after the test like the first. */
  openAnother(options?: OpenPageOptions): Promise<ChatPage>;
}

export function useChatPage(): ChatPageFixture {
  let harness: ChatHarness | undefined;
  let current: ChatPage | undefined;
  const extraPages: ChatPage[] = [];

  before(async function () {
    this.timeout(60_000);
    harness = await launchChatHarness();
  });
  after(async () => {
    await harness?.close();
  });
  beforeEach(async () => {
    if (!harness) throw new Error('The browser did not start');
    current = await harness.openPage();
    await current.waitForPosted('ready');
  });
  afterEach(async () => {
    await current?.close();
    for (const page of extraPages.splice(0)) await page.close();
  });

  return {
    get chat(): ChatPage {
      if (!current) throw new Error('No page: use the fixture inside a test');
      return current;
    },
    async openAnother(options) {
      if (!harness) throw new Error('The browser did not start');
      const page = await harness.openPage(options);
      extraPages.push(page);
      await page.waitForPosted('ready');
      return page;
    },
  };
}
