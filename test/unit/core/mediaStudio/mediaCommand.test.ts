import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  mediaCommandKind,
  modelMakes,
  parseMediaCommand,
} from '../../../../src/core/mediaStudio/mediaCommand';

function ok(text: string) {
  const result = parseMediaCommand(text);
  assert.ok(result?.ok, `parses: ${text} → ${JSON.stringify(result)}`);
  return result.command;
}

describe('media slash commands', () => {
  it('takes the prompt and typed flags in any order', () => {
    assert.deepEqual(ok('/image a red square --size 1024x1024 --n 2 --hd'), {
      kind: 'image',
      prompt: 'a red square',
      parameters: { size: '1024x1024', n: 2, hd: true },
    });
    assert.deepEqual(ok('/video --duration=5 a cat --model google/veo-3 jumping'), {
      kind: 'video',
      prompt: 'a cat jumping',
      model: 'google/veo-3',
      parameters: { duration: 5 },
    });
  });

  it('takes any model id the gateway uses, with or without a vendor', () => {
    for (const id of ['gpt-image-1', 'dall-e-3', 'openai/gpt-image-1', 'llama3.2:3b', 'my-team/img@v2'])
      assert.deepEqual(ok(`/image a red square --model ${id}`), {
        kind: 'image',
        prompt: 'a red square',
        model: id,
        parameters: {},
      });
  });

  it('keeps quoted values as strings and honours --', () => {
    assert.deepEqual(ok('/audio --voice "deep calm" --seed "42" hello -- --not-a-flag'), {
      kind: 'audio',
      prompt: 'hello --not-a-flag',
      parameters: { voice: 'deep calm', seed: '42' },
    });
  });

  it('is not a command without the exact word, and says what is wrong with a bad one', () => {
    assert.equal(parseMediaCommand('/images of cats'), undefined);
    assert.equal(parseMediaCommand('draw /image x'), undefined);
    assert.equal(mediaCommandKind('  /media x'), 'media');
    for (const [text, error] of [
      ['/image', /needs a prompt/],
      ['/image --size 1x1', /needs a prompt/],
      ['/image x --model "two words"', /model id/],
      ['/image x --model "a\u202eb"', /model id/],
      ['/image x --prompt y', /cannot be set/],
      ['/image x --constructor 1', /cannot be set/],
      ['/image x --9 1', /not a valid option/],
      ['/image "unclosed', /not closed/],
    ] as const) {
      const result = parseMediaCommand(text);
      assert.ok(result && !result.ok, text);
      assert.match(result.error, error);
    }
  });

  it('modelMakes follows the catalog entry; /media takes any model', () => {
    assert.equal(modelMakes('video', ['image']), false);
    assert.equal(modelMakes('image', ['image', 'text']), true);
    assert.equal(modelMakes('media', ['text']), true);
    assert.equal(modelMakes('audio', undefined), true);
  });

  it('never throws, and any result is well formed (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('/image', '/video', '/audio', '/media', '/imagex', ''),
        fc.string({ unit: fc.constantFrom('a', ' ', '-', '--', '=', '"', "'", '/', '1', 'x', '\n', '_') }),
        (head, tail) => {
          const result = parseMediaCommand(head + ' ' + tail);
          if (result === undefined) return;
          if (!result.ok) return assert.ok(result.error.length > 0);
          assert.ok(result.command.prompt.length > 0);
          assert.equal(Object.getPrototypeOf(result.command.parameters), Object.prototype);
          for (const key of Object.keys(result.command.parameters)) assert.match(key, /^[A-Za-z][\w.-]*$/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('gives back every word and flag it was built from (property)', () => {
    const word = fc.stringMatching(/^[a-z0-9][a-z0-9.,!?]{0,8}$/);
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((n) => n !== 'prompt' && n !== 'model');
    const value = fc.oneof(
      fc.stringMatching(/^[a-z][a-z0-9x]{0,8}$/).filter((v) => v !== 'true' && v !== 'false'),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.boolean(),
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(fc.tuple(name, value), { selector: ([n]) => n, maxLength: 5 }),
        fc.nat(),
        (words, flags, seed) => {
          const parts: string[] = [...words];
          flags.forEach(([n, v], i) => {
            const flag = v === true ? `--${n}` : seed % 2 ? `--${n}=${String(v)}` : `--${n} ${String(v)}`;
            // A bare flag just before a prompt word would take the word as its value: keep them last.
            if (v === true) parts.push(flag);
            else parts.splice((seed + i) % (parts.length + 1), 0, flag);
          });
          // Bare flags go last, after any flag with a value.
          const text = `/image ${[...parts.filter((p) => !/^--\w+$/.test(p)), ...parts.filter((p) => /^--\w+$/.test(p))].join(' ')}`;
          const command = ok(text);
          assert.equal(command.prompt, words.join(' '));
          assert.deepEqual(command.parameters, Object.fromEntries(flags));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
