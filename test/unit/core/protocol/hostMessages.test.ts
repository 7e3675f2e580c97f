import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseHostMessage, parseTurn } from '../../../../src/core/protocol/chatProtocol';
import type { HostMessage, Turn } from '../../../../src/core/protocol/chatProtocol';
import { isCardSource } from '../../../../src/core/protocol/mediaCardProtocol';
import { MAX_TOKEN_COUNT, MAX_USD } from '../../../../src/api/types';
import { toMarkdown } from '../../../../src/core/chat/conversation';
import { chatTotals } from '../../../../src/core/cost/replyCost';

const FUZZ_RUNS = 2000;
/** Anything JSON can carry, kept shallow so thousands of cases stay quick. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

const goodAssistant = {
  id: 'a-1',
  role: 'assistant',
  content: 'Hello',
  reasoning: '',
  status: 'complete',
  model: 'openai/gpt-4o-mini',
  createdAt: 1,
};

/** Every field a turn's view reads, with the type it must have. */
function assertTurnShape(turn: Turn): void {
  assert.equal(typeof turn.id, 'string');
  assert.equal(typeof turn.content, 'string');
  assert.ok(Number.isFinite(turn.createdAt));
  assert.ok(turn.leftOut === undefined || turn.leftOut === true, 'leftOut is true or absent');
  if (turn.role === 'user') {
    for (const a of turn.attachments ?? []) {
      assert.equal(typeof a.name, 'string');
      assert.ok(Number.isFinite(a.bytes) && Number.isFinite(a.tokens));
    }
    return;
  }
  assert.equal(turn.role, 'assistant');
  assert.equal(typeof turn.reasoning, 'string');
  assert.equal(typeof turn.model, 'string');
  assert.ok(['streaming', 'complete', 'stopped', 'error'].includes(turn.status));
  for (const name of ['provider', 'finishReason'] as const)
    assert.ok(turn[name] === undefined || typeof turn[name] === 'string');
  for (const value of Object.values(turn.usage ?? {})) assert.ok(Number.isFinite(value));
  for (const call of turn.toolCalls ?? []) {
    assert.equal(typeof call.name, 'string');
    assert.equal(typeof call.arguments, 'string');
  }
  for (const citation of turn.citations ?? []) {
    assert.equal(typeof citation.url, 'string');
    assert.ok(citation.title === undefined || typeof citation.title === 'string');
  }
  if (turn.media) {
    assert.equal(typeof turn.media.jobId, 'string');
    assert.ok(['image', 'video', 'audio', 'media'].includes(turn.media.kind));
    assert.equal(typeof turn.media.prompt, 'string');
  }
  if (turn.error) {
    assert.equal(typeof turn.error.message, 'string');
    assert.ok(Array.isArray(turn.error.actions));
    if (turn.error.retryAfter !== undefined)
      assert.ok(turn.error.retryAfter >= 0 && turn.error.retryAfter <= 86_400);
  }
}

function assertMessageShape(message: HostMessage): void {
  switch (message.type) {
    case 'init': {
      const ids = message.conversation.turns.map((turn) => turn.id);
      assert.equal(new Set(ids).size, ids.length, 'turn ids are unique');
      message.conversation.turns.forEach(assertTurnShape);
      assert.equal(typeof message.hasApiKey, 'boolean');
      break;
    }
    case 'turnAdded':
    case 'turnUpdated':
      assertTurnShape(message.turn);
      break;
    case 'turnDelta':
      assert.ok(typeof message.content === 'string' || typeof message.reasoning === 'string');
      break;
    case 'turnsRemoved':
      assert.ok(message.ids.every((id) => typeof id === 'string'));
      break;
    case 'queue':
      assert.ok(message.items.every((item) => typeof item.id === 'string' && typeof item.text === 'string'));
      break;
    case 'mediaJob': {
      const { job } = message;
      assert.ok(typeof job.jobId === 'string' && job.jobId.length > 0);
      assert.equal(typeof job.status, 'string');
      assert.equal(typeof job.model, 'string');
      assert.ok(Number.isFinite(job.createdAt));
      assert.ok(job.error === undefined || typeof job.error === 'string');
      assert.ok(job.cost === undefined || (Number.isFinite(job.cost) && job.cost >= 0), String(job.cost));
      assert.ok(job.progress === undefined || (job.progress >= 0 && job.progress <= 1), String(job.progress));
      for (const output of job.outputs) {
        if (output.kind === 'text') assert.equal(typeof output.text, 'string');
        else if (output.kind === 'file') assert.equal(typeof output.note, 'string');
        // Only the webview's own resource URLs: never remote, never data.
        else assert.ok(isCardSource(output.src), output.src);
      }
      break;
    }
    case 'composerNotice':
      assert.equal(typeof message.message, 'string');
      break;
    case 'workspaceTrust':
      assert.equal(typeof message.restricted, 'boolean');
      break;
    default:
      break;
  }
}

/** A turn-like record: the right keys, each with the right type or anything JSON can carry. */
const turnLike = fc.record(
  {
    id: fc.oneof(fc.constantFrom('t1', 't2', 't3'), anyJson),
    role: fc.oneof(fc.constantFrom('user', 'assistant'), anyJson),
    content: fc.oneof(fc.string(), anyJson),
    reasoning: fc.oneof(fc.string(), anyJson),
    status: fc.oneof(fc.constantFrom('streaming', 'complete', 'stopped', 'error'), anyJson),
    model: fc.oneof(fc.string(), anyJson),
    createdAt: fc.oneof(fc.integer(), anyJson),
    usage: fc.oneof(fc.record({ promptTokens: anyJson, cost: anyJson }), anyJson),
    toolCalls: fc.oneof(fc.array(fc.record({ name: anyJson, arguments: anyJson })), anyJson),
    citations: fc.oneof(fc.array(fc.record({ url: anyJson, title: anyJson })), anyJson),
    error: fc.oneof(fc.record({ message: anyJson, actions: anyJson, retryAfter: anyJson }), anyJson),
    leftOut: fc.oneof(fc.boolean(), anyJson),
    attachments: fc.oneof(
      fc.array(
        fc.record({
          id: anyJson,
          kind: fc.constantFrom('file', 'image', 'x'),
          name: anyJson,
          bytes: anyJson,
        }),
      ),
      anyJson,
    ),
    media: fc.oneof(
      fc.record({
        jobId: fc.oneof(fc.constant('j1'), anyJson),
        kind: fc.oneof(fc.constant('image'), anyJson),
        prompt: anyJson,
      }),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);

const messageLike = fc.oneof(
  fc.record({ type: fc.constantFrom('turnAdded', 'turnUpdated'), turn: turnLike }),
  fc.record({
    type: fc.constant('init'),
    conversation: fc.record({
      id: fc.oneof(fc.constant('c'), anyJson),
      title: anyJson,
      turns: fc.array(turnLike),
    }),
    model: anyJson,
    hasApiKey: anyJson,
    history: anyJson,
  }),
  fc.record({
    type: fc.constant('turnDelta'),
    id: anyJson,
    content: anyJson,
    reasoning: anyJson,
  }),
  fc.record({
    type: fc.constantFrom('turnsRemoved', 'queue', 'history', 'model', 'apiKey', 'setComposer'),
    ids: anyJson,
    items: anyJson,
    model: anyJson,
    hasApiKey: anyJson,
    text: anyJson,
  }),
  fc.record(
    {
      type: fc.constant('mediaJob'),
      job: fc.oneof(
        fc.record(
          {
            jobId: fc.oneof(fc.constant('j1'), anyJson),
            status: fc.oneof(
              fc.constantFrom('queued', 'processing', 'completed', 'failed', 'cancelled', 'expired'),
              anyJson,
            ),
            model: anyJson,
            createdAt: fc.oneof(fc.nat(), anyJson),
            finishedAt: anyJson,
            error: anyJson,
            preparing: anyJson,
            cost: fc.oneof(fc.double(), anyJson),
            progress: fc.oneof(fc.double(), anyJson),
            outputs: fc.oneof(
              fc.array(
                fc.record({
                  kind: fc.oneof(fc.constantFrom('image', 'video', 'audio', 'text', 'file'), anyJson),
                  src: fc.oneof(
                    fc.constantFrom(
                      'https://file+.vscode-resource.vscode-cdn.net/x.png',
                      'https://evil.example/x.png',
                      'data:image/png;base64,AAAA',
                      'javascript:alert(1)',
                    ),
                    anyJson,
                  ),
                  text: anyJson,
                  note: anyJson,
                }),
              ),
              anyJson,
            ),
          },
          { requiredKeys: [] },
        ),
        anyJson,
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('composerNotice'), message: anyJson }),
  fc.record({ type: fc.constant('workspaceTrust'), restricted: fc.oneof(fc.boolean(), anyJson) }),
  anyJson,
);

describe('host messages: parsed by type in the webview', function () {
  this.timeout(60_000);
  it('keeps a well-formed turn as it is', () => {
    assert.deepEqual(
      parseTurn(goodAssistant, () => assert.fail('nothing to report')),
      goodAssistant,
    );
  });

  it('drops usage figures out of range: a negative cost or count, a cost past any real one', () => {
    const problems: string[] = [];
    const turn = parseTurn(
      {
        ...goodAssistant,
        usage: { cost: -5, cachedTokens: -5, promptTokens: 1e300, cacheSavings: 9e299, completionTokens: 7 },
      },
      (path) => problems.push(path),
    );
    assert.deepEqual(turn && 'usage' in turn && turn.usage, { completionTokens: 7 });
    assert.deepEqual(problems.sort(), [
      'turn.usage.cacheSavings',
      'turn.usage.cachedTokens',
      'turn.usage.cost',
      'turn.usage.promptTokens',
    ]);
    const huge = parseTurn({ ...goodAssistant, usage: { cost: 1e308 } }, () => undefined) as Turn;
    const markdown = toMarkdown({ id: 'c', title: 'T', createdAt: 0, updatedAt: 0, turns: [huge, huge] });
    assert.doesNotMatch(markdown, /\$\d+(\.\d+)?e\+|Infinity|NaN/);
  });

  it(`any stored usage: every figure finite, in its range, and the totals too (property, ${FUZZ_RUNS} cases)`, () => {
    const figure = fc.oneof(
      fc.double(),
      fc.constantFrom(1e308, -5, -0, 1e300, MAX_USD, MAX_TOKEN_COUNT + 1),
      fc.nat(),
      anyJson,
    );
    const usageLike = fc.dictionary(
      fc.constantFrom(
        'promptTokens',
        'completionTokens',
        'reasoningTokens',
        'totalTokens',
        'cost',
        'cachedTokens',
        'cacheWriteTokens',
        'cacheSavings',
      ),
      figure,
    );
    fc.assert(
      fc.property(fc.array(usageLike, { maxLength: 6 }), (usages) => {
        const turns = usages.map(
          (usage) => parseTurn({ ...goodAssistant, usage }, () => undefined) as Turn & { usage?: object },
        );
        for (const turn of turns)
          for (const [name, value] of Object.entries(turn.usage ?? {})) {
            assert.ok(Number.isFinite(value), name);
            if (name === 'cacheSavings') assert.ok(Math.abs(value as number) <= MAX_USD, name);
            else if (name === 'cost') assert.ok(value >= 0 && value <= MAX_USD, name);
            else assert.ok(value >= 0 && value <= MAX_TOKEN_COUNT, name);
          }
        const totals = chatTotals(turns.map((turn) => turn.usage));
        assert.ok(totals.cost === undefined || (Number.isFinite(totals.cost) && totals.cost >= 0));
        assert.ok(totals.saved === undefined || Number.isFinite(totals.saved));
        const markdown = toMarkdown({ id: 'c', title: 'T', createdAt: 0, updatedAt: 0, turns });
        assert.doesNotMatch(markdown, /Infinity|NaN|\$-/);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('turns odd fields into absent ones and reports each, so the turn still renders', () => {
    const problems: string[] = [];
    const turn = parseTurn(
      {
        ...goodAssistant,
        content: 42,
        status: 'thinking',
        usage: { promptTokens: '12', cost: 0.5 },
        citations: 'https://example.com',
        error: { message: 'Nope', actions: ['retry', 'rm -rf'], retryAfter: 1e12 },
        extra: { anything: true },
      },
      (path) => problems.push(path),
    );
    assert.deepEqual(turn, {
      ...goodAssistant,
      content: '',
      status: 'complete',
      usage: { cost: 0.5 },
      error: { message: 'Nope', actions: ['retry'], retryAfter: 86_400 },
    });
    assert.deepEqual(problems.sort(), [
      'turn.citations',
      'turn.content',
      'turn.error.actions[1]',
      'turn.status',
      'turn.usage.promptTokens',
    ]);
  });

  it('refuses messages without what they are about, and unknown types', () => {
    for (const bad of [
      { type: 'turnAdded', turn: { role: 'user', content: 'no id' } },
      { type: 'turnAdded', turn: { id: 'x', role: 'system', content: 'x' } },
      { type: 'turnDelta', id: 'x' },
      { type: 'turnDelta', content: 'no id' },
      { type: 'init', conversation: { turns: [] } },
      { type: 'apiKey', hasApiKey: 'yes' },
      { type: 'queue', items: 'x' },
      { type: 'evil' },
      undefined,
    ]) {
      assert.equal(parseHostMessage(bad), undefined, JSON.stringify(bad));
    }
  });

  it('keeps the usable turns of a conversation, each id once', () => {
    const problems: string[] = [];
    const message = parseHostMessage(
      {
        type: 'init',
        conversation: {
          id: 'c',
          title: 'T',
          turns: [
            { id: 'u', role: 'user', content: 'q', createdAt: 1 },
            'junk',
            goodAssistant,
            goodAssistant,
          ],
        },
        model: 'm',
        hasApiKey: true,
        history: [],
      },
      (path) => problems.push(path),
    );
    assert.ok(message?.type === 'init');
    assert.deepEqual(
      message.conversation.turns.map((turn) => turn.id),
      ['u', 'a-1'],
    );
    assert.equal(problems.length, 2);
  });

  it('keeps a media card state and leaves out results the webview may not load', () => {
    const problems: string[] = [];
    const job = {
      jobId: 'j1',
      status: 'completed',
      model: 'openai/gpt-image-1',
      createdAt: 5,
      finishedAt: 9,
      cost: 0.04,
    };
    const local = { kind: 'image', src: 'https://file+.vscode-resource.vscode-cdn.net/g/media/a-1.png' };
    const text = { kind: 'text', text: '<b>[x](command:y)</b>' };
    const outputs = [
      local,
      { kind: 'image', src: 'https://evil.example/p.png' },
      { kind: 'video', src: 'data:video/mp4;base64,AAAA' },
      text,
      { kind: 'script', src: 'x' },
    ];
    const message = parseHostMessage({ type: 'mediaJob', job: { ...job, outputs } }, (path) =>
      problems.push(path),
    );
    assert.deepEqual(message, { type: 'mediaJob', job: { ...job, outputs: [local, text] } });
    assert.deepEqual(problems, ['job.outputs[1]', 'job.outputs[2]', 'job.outputs[4]']);
    assert.equal(parseHostMessage({ type: 'mediaJob', job: { status: 'queued' } }), undefined);
    for (const cost of [-1, 'free', Infinity]) {
      const odd: string[] = [];
      const parsed = parseHostMessage({ type: 'mediaJob', job: { ...job, cost, outputs: [] } }, (path) =>
        odd.push(path),
      );
      assert.ok(parsed?.type === 'mediaJob' && parsed.job.cost === undefined, String(cost));
      assert.deepEqual(odd, ['job.cost']);
    }
  });

  it("keeps a turn's media card reference, and reports a broken one", () => {
    const media = { jobId: 'j1', kind: 'image', prompt: 'a red square' };
    assert.deepEqual(
      parseTurn({ ...goodAssistant, media }, () => assert.fail('nothing to report')),
      {
        ...goodAssistant,
        media,
      },
    );
    const problems: string[] = [];
    assert.deepEqual(
      parseTurn({ ...goodAssistant, media: { jobId: 'j1', kind: 'hologram', prompt: 'x' } }, (p) =>
        problems.push(p),
      ),
      goodAssistant,
    );
    assert.deepEqual(problems, ['turn.media']);
  });

  it(`never throws, and whatever it returns has our types (${FUZZ_RUNS} arbitrary messages)`, () => {
    let parsed = 0;
    fc.assert(
      fc.property(messageLike, (value) => {
        const message = parseHostMessage(value, () => undefined);
        if (message) {
          parsed++;
          assertMessageShape(message);
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
    assert.ok(
      parsed > FUZZ_RUNS / 10,
      `only ${parsed} of ${FUZZ_RUNS} messages were usable; the generator is off`,
    );
  });
});
