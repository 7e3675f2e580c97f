/**
 * Arbitrary sequences of host messages, generated in Node by fast-check and posted one by one
 * into the real page: well-formed ones, well-shaped ones with fields of any JSON value, and
 * anything at all. After each sequence: nothing threw in the page, the chat still renders, and
 * every turn the sequence added (and did not remove) is on screen, in order, user text intact.
 */
import * as assert from 'assert';
import fc from 'fast-check';
import { parseHostMessage } from '../../src/core/protocol/chatProtocol';
import type { Turn } from '../../src/core/protocol/chatProtocol';
import { useChatPage } from './chatPageFixture';
import type { ChatPage } from './harness';

const SEQUENCES = 200;
const anyJson = fc.jsonValue({ maxDepth: 2 });

const userIds = ['u1', 'u2', 'u3'];
const assistantIds = ['a1', 'a2', 'a3'];
const markdownish = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '# Title\n',
    '```ts\nconst x = 1;\n',
    '```\n',
    '| a | b |\n|---|---|\n| 1 | 2 |\n',
    '[x](https://e.com "t")',
    '> q\n\n- i\n',
  ),
);

const userTurnArb = fc.record({
  id: fc.constantFrom(...userIds),
  role: fc.constant('user'),
  content: fc.string({ maxLength: 40 }),
  createdAt: fc.nat(),
});
const assistantTurnArb = fc.record(
  {
    id: fc.constantFrom(...assistantIds),
    role: fc.constant('assistant'),
    content: markdownish,
    reasoning: fc.string({ maxLength: 20 }),
    status: fc.constantFrom('streaming', 'complete', 'stopped', 'error'),
    model: fc.string({ maxLength: 20 }),
    createdAt: fc.nat(),
    usage: fc.record({ promptTokens: fc.nat(), cost: fc.double({ min: 0, max: 1, noNaN: true }) }),
    citations: fc.array(fc.record({ url: fc.webUrl(), title: fc.string({ maxLength: 20 }) }), {
      maxLength: 2,
    }),
    error: fc.record({ message: fc.string(), actions: fc.subarray(['retry', 'setApiKey'] as const) }),
  },
  { requiredKeys: ['id', 'role', 'content', 'reasoning', 'status', 'model', 'createdAt'] },
);
const turnArb = fc.oneof(userTurnArb, assistantTurnArb);

/** A value of the right shape with one field replaced by any JSON value (or removed). */
function spoiled<T extends Record<string, unknown>>(arb: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.tuple(arb, fc.nat(), anyJson, fc.boolean()).map(([value, index, junk, remove]) => {
    const keys = Object.keys(value);
    const key = keys[index % keys.length];
    const copy: Record<string, unknown> = { ...value };
    if (remove) delete copy[key];
    else copy[key] = junk;
    return copy;
  });
}

const validMessage = fc.oneof(
  fc.record({ type: fc.constant('turnAdded'), turn: turnArb }),
  fc.record({ type: fc.constant('turnUpdated'), turn: turnArb }),
  fc.record({
    type: fc.constant('turnDelta'),
    id: fc.constantFrom(...assistantIds, ...userIds, 'nobody'),
    content: markdownish,
  }),
  fc.record({ type: fc.constant('turnsRemoved'), ids: fc.subarray([...userIds, ...assistantIds]) }),
  fc.record({
    type: fc.constant('init'),
    conversation: fc.record({
      id: fc.constant('c1'),
      title: fc.string(),
      turns: fc.uniqueArray(turnArb, { selector: (turn) => turn.id, maxLength: 5 }),
    }),
    model: fc.string(),
    hasApiKey: fc.boolean(),
    history: fc.constant([]),
  }),
  fc.record({
    type: fc.constant('queue'),
    items: fc.array(fc.record({ id: fc.constantFrom('q1', 'q2'), text: fc.string() }), { maxLength: 2 }),
  }),
  fc.record({ type: fc.constant('model'), model: fc.string() }),
  fc.record({ type: fc.constant('apiKey'), hasApiKey: fc.boolean() }),
);

const anyMessage = fc.oneof(
  { weight: 5, arbitrary: validMessage },
  {
    weight: 3,
    arbitrary: validMessage.chain((message) => spoiled(fc.constant(message as Record<string, unknown>))),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      spoiled(fc.record({ type: fc.constantFrom('turnAdded', 'turnUpdated'), turn: turnArb })),
      fc.record({ type: fc.constantFrom('turnAdded', 'turnUpdated'), turn: spoiled(turnArb) }),
    ),
  },
  { weight: 1, arbitrary: anyJson },
);

/** What the page must show after `messages`: the turns, in order, by the parser's own reading. */
function expectedTurns(messages: unknown[]): Turn[] {
  let turns: Turn[] = [];
  for (const raw of messages) {
    const message = parseHostMessage(raw);
    if (!message) continue;
    if (message.type === 'init') turns = message.conversation.turns.slice();
    else if (message.type === 'turnAdded' || message.type === 'turnUpdated') {
      const index = turns.findIndex((turn) => turn.id === message.turn.id);
      // An id already shown is an update, whichever of the two messages brings it.
      if (index < 0) turns.push(message.turn);
      else turns[index] = message.turn;
    } else if (message.type === 'turnsRemoved') {
      turns = turns.filter((turn) => !message.ids.includes(turn.id));
    }
  }
  return turns;
}

interface PageDom {
  postMessage(message: unknown, origin: string): void;
  requestAnimationFrame(callback: () => void): number;
  document: {
    querySelector(selector: string): unknown;
    querySelectorAll(selector: string): { length: number };
  };
}

interface ShownTurn {
  id: string | null;
  failed: boolean;
  userText?: string;
}

/**
 * Posts a fresh empty chat and then the messages, as the host would, and waits until the page
 * shows `count` turns with nothing left to render (older turns of an `init` come in idle time).
 */
async function postAndWait(chat: ChatPage, messages: unknown[], count: number): Promise<void> {
  await chat.page.evaluate((all) => {
    const page = globalThis as unknown as PageDom;
    page.postMessage(
      {
        type: 'init',
        conversation: { id: 'c0', title: '', turns: [] },
        model: 'm',
        hasApiKey: true,
        history: [],
      },
      '*',
    );
    for (const message of all) page.postMessage(message, '*');
  }, messages);
  await chat.page
    .waitForFunction(
      (wanted) => {
        const doc = (globalThis as unknown as PageDom).document;
        return (
          doc.querySelectorAll('.turn-list > .turn').length === wanted &&
          !doc.querySelector('[data-render-pending]')
        );
      },
      count,
      { timeout: 10_000 },
    )
    // The assertion below says what is on screen instead of a bare timeout.
    .catch(() => undefined);
  await chat.nextFrames(1);
}

async function turnsOnScreen(chat: ChatPage): Promise<ShownTurn[]> {
  return chat.page.locator('.turn-list > .turn').evaluateAll((elements) =>
    elements.map((element) => {
      const el = element as unknown as {
        getAttribute(name: string): string | null;
        querySelector(selector: string): { textContent: string | null } | null;
        classList: { contains(name: string): boolean };
      };
      return {
        id: el.getAttribute('data-turn-id'),
        failed: el.classList.contains('turn-failed'),
        userText: el.querySelector('.user-text')?.textContent ?? undefined,
      };
    }),
  );
}

describe('chat webview: arbitrary host messages (fuzz)', function () {
  this.timeout(600_000);
  const fixture = useChatPage();

  it(`keeps rendering and loses no turn over ${SEQUENCES} arbitrary message sequences`, async () => {
    const { chat } = fixture;
    let messagesPosted = 0;
    let validPosted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(anyMessage, { minLength: 1, maxLength: 12 }), async (messages) => {
        messagesPosted += messages.length;
        validPosted += messages.filter((message) => parseHostMessage(message)).length;
        const errorsBefore = chat.errors().length;
        const expected = expectedTurns(messages);
        await postAndWait(chat, messages, expected.length);
        const onScreen = await turnsOnScreen(chat);
        assert.deepStrictEqual(
          onScreen.map((turn) => turn.id),
          expected.map((turn) => turn.id),
          'every turn added and not removed is on screen, in order',
        );
        for (const [index, turn] of expected.entries()) {
          assert.strictEqual(onScreen[index].failed, false, `turn ${turn.id} rendered`);
          if (turn.role === 'user' && onScreen[index].userText !== undefined)
            assert.strictEqual(onScreen[index].userText, turn.content, `text of ${turn.id}`);
        }
        assert.deepStrictEqual(chat.errors().slice(errorsBefore), [], 'nothing threw in the page');
      }),
      // The run's seed (GATEWAY_TEST_SEED replays it) comes from the tier's global configuration.
      { numRuns: SEQUENCES },
    );
    console.log(
      `      fuzz: ${SEQUENCES} sequences, ${messagesPosted} messages posted (${validPosted} accepted)`,
    );
  });
});
