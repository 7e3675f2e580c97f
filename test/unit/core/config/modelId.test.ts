import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { MAX_MODEL_ID, isModelId, modelIdProblem, toModelId } from '../../../../src/core/config/modelId';
import { parseSettings } from '../../../../src/core/config/settingsModel';
import { Setting } from '../../../../src/core/ids';

const EXAMPLES = [
  'gpt-4o',
  'gpt-image-1',
  'dall-e-3',
  'llama3.2:3b',
  'my-team/claude',
  'anthropic/claude-sonnet-4.5',
  'openai/gpt-4o-mini',
  'meta-llama/llama-3.3-70b-instruct:free',
  'model@2024-05-13',
  'azure/gpt-4o@eastus',
  '~anthropic/claude-latest',
  'qwen/qwen3',
  '模型',
  'x'.repeat(MAX_MODEL_ID),
];

const REFUSED = [
  '',
  '   ',
  'two words',
  'gpt-4o\n',
  'a\tb',
  'a\u0000b',
  'a\u001bb',
  'a\u007fb',
  'a\u0085b',
  'gpt\u202e4o',
  'gpt\u2066x\u2069',
  'gpt\u200b4o',
  'gpt\u200d4o',
  '\ufeffgpt-4o',
  'gpt\u00ad4o',
  'gpt\u00a04o',
  'gpt\u20284o',
  'gpt\u3000x',
  'a\ud800b',
  'a\ue000b',
  'x'.repeat(MAX_MODEL_ID + 1),
];

/** The `pattern` the settings schema gives the chat model (VS Code checks it without the `u` flag). */
function schemaPattern(setting: string): RegExp {
  const manifest = JSON.parse(
    readFileSync(path.resolve(__dirname, '../../../../../package.json'), 'utf8'),
  ) as {
    contributes: { configuration: { properties: Record<string, { pattern?: string }> } };
  };
  const { properties } = manifest.contributes.configuration;
  const pattern = properties[setting]?.pattern;
  assert.ok(pattern, `${setting} has a pattern`);
  return new RegExp(pattern);
}

describe('model ids', () => {
  it('takes the ids gateways use, with or without a vendor, a colon, an @ or dots', () => {
    for (const id of EXAMPLES) {
      assert.equal(modelIdProblem(id), undefined, id);
      assert.ok(isModelId(id), id);
      assert.equal(toModelId(` ${id} `), id);
    }
  });

  it('refuses empty, too long, spaced, control, invisible and layout characters, and says why', () => {
    for (const id of REFUSED) {
      assert.equal(isModelId(id), false, JSON.stringify(id));
      assert.match(modelIdProblem(id) ?? '', /model id/, JSON.stringify(id));
    }
    for (const value of [undefined, null, 7, {}, ['gpt-4o']]) {
      assert.equal(isModelId(value), false);
      assert.equal(toModelId(value), undefined);
    }
  });

  it('never throws, and what it takes is bounded and has no control or format characters (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.anything()), (value) => {
        const id = toModelId(value);
        assert.equal(modelIdProblem(value) === undefined, isModelId(value));
        if (id === undefined) return;
        assert.ok(id.length >= 1 && id.length <= MAX_MODEL_ID);
        assert.ok(!/[\p{Cc}\p{Cf}\p{Cs}\p{Z}\s]/u.test(id), JSON.stringify(id));
        assert.equal(toModelId(id), id);
      }),
      { numRuns: 2000 },
    );
  });

  it('the settings schema takes and refuses what the validator does (property over BMP text)', () => {
    const chat = schemaPattern(Setting.chatModel);
    const media = schemaPattern(Setting.mediaModel);
    const compaction = schemaPattern(Setting.chatCompactionModel);
    const inline = schemaPattern(Setting.inlineModel);
    assert.ok(compaction.test('') && inline.test(''), 'the optional models may be empty');
    assert.ok(!chat.test('') && !media.test(''));
    const check = (id: string) => {
      for (const pattern of [chat, media, compaction, inline])
        if (id !== '')
          assert.equal(pattern.test(id), isModelId(id), `${pattern.source} on ${JSON.stringify(id)}`);
    };
    for (const id of [...EXAMPLES, ...REFUSED.filter((id) => !/[\ud800-\udfff]/.test(id))]) check(id);
    // Astral characters are two UTF-16 units to a pattern without the `u` flag: kept to the BMP.
    const bmp = fc
      .array(
        fc.oneof(
          fc.integer({ min: 0x20, max: 0x7e }),
          fc.integer({ min: 0, max: 0xd7ff }),
          fc.integer({ min: 0xe000, max: 0xffff }),
        ),
        { maxLength: 300 },
      )
      .map((codes) => String.fromCharCode(...codes));
    fc.assert(fc.property(bmp, check), { numRuns: 2000 });
  });

  it('settings keep any model id and drop an unsafe one', () => {
    const values: Record<string, unknown> = {
      [Setting.chatModel]: ' gpt-4o ',
      [Setting.chatModels]: ['llama3.2:3b', 'bad\u202eid', 'my-team/claude'],
      [Setting.mediaModel]: 'dall-e-3',
      [Setting.inlineModel]: 'codestral:latest',
      [Setting.chatCompactionModel]: 'a\nb',
    };
    const settings = parseSettings((key) => values[key]);
    assert.equal(settings.chat.model, 'gpt-4o');
    assert.deepEqual(settings.chat.models, ['llama3.2:3b', 'my-team/claude']);
    assert.equal(settings.media.model, 'dall-e-3');
    assert.equal(settings.inlineCompletions.model, 'codestral:latest');
    assert.equal(settings.chat.compactionModel, '');
  });
});
