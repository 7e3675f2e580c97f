import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  attachToMessages,
  binarySizeProblem,
  MAX_IMAGE_BYTES,
  MAX_PDF_BYTES,
  fencedBlock,
  estimateContext,
  parseAttachments,
  textAttachment,
  turnsToLeaveOut,
  userMessageWithAttachments,
} from '../../../../src/core/chat/attachments';
import type { Attachment } from '../../../../src/core/chat/attachments';
import { toApiMessages } from '../../../../src/core/chat/conversation';
import { parseWebviewMessage } from '../../../../src/core/protocol/chatProtocol';
import type { Turn } from '../../../../src/core/protocol/chatProtocol';

const FUZZ_RUNS = 2000;

describe('attachments', () => {
  const file = textAttachment({
    id: 'f1',
    kind: 'file',
    name: 'a.md',
    path: 'docs/a.md',
    language: 'markdown',
    text: 'x\n```js\ny\n```',
  });
  const image: Attachment = {
    id: 'i1',
    kind: 'image',
    name: 'p.png',
    mimeType: 'image/png',
    file: 'i1.png',
    bytes: 3,
    tokens: 765,
  };

  it('fences text under its workspace path, longer than any fence inside it', () => {
    assert.equal(fencedBlock(file), 'docs/a.md\n````markdown\nx\n```js\ny\n```\n````');
    assert.ok(file.tokens > 0 && file.bytes === 13);
  });

  it('builds OpenAI-style parts: text, fenced text, image_url data URL', () => {
    const message = userMessageWithAttachments('look', [file, image], () => 'AAAA');
    assert.deepEqual(message.content, [
      { type: 'text', text: 'look' },
      { type: 'text', text: fencedBlock(file) },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
    assert.deepEqual(
      userMessageWithAttachments('plain', [], () => undefined),
      { role: 'user', content: 'plain' },
    );
  });

  it('sends a PDF as a file part with a data URL, and reads it back from a stored turn', () => {
    const pdf = {
      id: 'p1',
      kind: 'pdf' as const,
      name: 'spec.pdf',
      mimeType: 'application/pdf',
      file: 'pdf-1.pdf',
      bytes: 2000,
      tokens: 100,
    };
    assert.deepEqual(userMessageWithAttachments('read', [pdf], () => 'JVBERi0=').content, [
      { type: 'text', text: 'read' },
      { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
    ]);
    assert.deepEqual(parseAttachments(JSON.parse(JSON.stringify([pdf]))), [pdf]);
  });

  it('puts each turn’s attachments into its own message', () => {
    const turns = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'two', attachments: [file] },
    ];
    const messages = attachToMessages(
      [
        { role: 'system', content: 's' },
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'two' },
      ],
      turns,
      () => undefined,
    );
    assert.equal(messages[1].content, 'one');
    assert.ok(Array.isArray(messages[3].content));
  });

  it(`stored attachments are parsed, never trusted (property, ${FUZZ_RUNS} cases)`, () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const a of parseAttachments(value) ?? []) {
          assert.ok(['selection', 'file', 'problems', 'image', 'pdf'].includes(a.kind));
          if (a.file) assert.match(a.file, /^[A-Za-z0-9_.-]+$/, 'no path in a stored image name');
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it(`the webview's attach messages are validated (property, ${FUZZ_RUNS} cases)`, () => {
    fc.assert(
      fc.property(
        fc.record({
          type: fc.constantFrom('attachImage', 'attachUris', 'removeAttachment', 'attachFile'),
          name: fc.oneof(fc.string(), fc.jsonValue()),
          mimeType: fc.oneof(fc.constantFrom('image/png', 'image/svg+xml', 'text/html'), fc.string()),
          data: fc.oneof(fc.base64String(), fc.string()),
          uris: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
          id: fc.oneof(fc.string(), fc.jsonValue()),
        }),
        (value) => {
          const message = parseWebviewMessage(value);
          if (message?.type === 'attachImage') {
            assert.match(message.mimeType, /^image\/(png|jpeg|webp|gif)$/);
            assert.match(message.data, /^[A-Za-z0-9+/]*={0,2}$/);
          }
          if (message?.type === 'attachUris') assert.ok(message.uris.every((u) => typeof u === 'string'));
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  describe('leaving the oldest turns out to fit the context', () => {
    /** Each turn's text is 36 characters: 9 tokens, plus 4 per message = 13. */
    const text = 'x'.repeat(36);
    function exchange(n: number): Turn[] {
      return [
        { id: `u${n}`, role: 'user', content: text, createdAt: n },
        {
          id: `a${n}`,
          role: 'assistant',
          content: text,
          reasoning: '',
          status: 'complete',
          model: 'm',
          createdAt: n,
        },
      ];
    }
    const turns = [...exchange(1), ...exchange(2), ...exchange(3)];

    it('leaves out just enough whole exchanges, oldest first', () => {
      assert.equal(estimateContext(turns, '', []), 78);
      assert.deepEqual(turnsToLeaveOut(turns, '', [], 10, 100), []);
      assert.deepEqual(turnsToLeaveOut(turns, '', [], 30, 100), ['u1', 'a1']);
      assert.deepEqual(turnsToLeaveOut(turns, '', [], 60, 100), ['u1', 'a1', 'u2', 'a2']);
    });

    it('counts pending attachments and never names more than every turn', () => {
      const big = textAttachment({ id: 'p', kind: 'file', name: 'big', text: 'y'.repeat(4000) });
      assert.deepEqual(turnsToLeaveOut(turns, '', [big], 0, 100), ['u1', 'a1', 'u2', 'a2', 'u3', 'a3']);
    });

    it('left-out turns are not counted, not sent, and their attachments stay off the request', () => {
      const kept = turns.map((t) => (t.id === 'u1' || t.id === 'a1' ? { ...t, leftOut: true } : t));
      (kept[0] as Extract<Turn, { role: 'user' }>).attachments = [file];
      assert.equal(estimateContext(kept, '', []), 52);
      assert.deepEqual(turnsToLeaveOut(kept, '', [], 60, 100), ['u2', 'a2']);
      const messages = attachToMessages(toApiMessages(kept, ''), kept, () => undefined);
      assert.equal(messages.length, 4);
      assert.ok(
        messages.every((m) => typeof m.content === 'string'),
        'no attachment of a left-out turn',
      );
    });
  });
});

describe('attachments: images and PDFs over the cap are refused by their size alone', () => {
  it('says how large the file is and what the cap is, before anything is read', () => {
    assert.equal(binarySizeProblem('pdf', 'spec.pdf', MAX_PDF_BYTES), undefined);
    assert.equal(binarySizeProblem('image', 'a.png', MAX_IMAGE_BYTES), undefined);
    assert.equal(
      binarySizeProblem('pdf', 'big.pdf', 3 * 1024 ** 3),
      'big.pdf is 3072.0 MB; PDFs up to 20.0 MB can be attached.',
    );
    assert.equal(
      binarySizeProblem('image', 'a.png', MAX_IMAGE_BYTES + 1),
      'a.png is 20.0 MB; images up to 20.0 MB can be attached.',
    );
  });
});
