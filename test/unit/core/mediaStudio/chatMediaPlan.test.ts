import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkPlan, planChatMedia } from '../../../../src/core/mediaStudio/chatMediaPlan';
import type { ChatMediaPlan } from '../../../../src/core/mediaStudio/chatMediaPlan';

const settings = { model: 'openai/gpt-image-1', parameters: { size: '512x512', quality: 'low' } };

function plan(text: string): ChatMediaPlan {
  const result = planChatMedia(text, settings);
  assert.ok(result?.ok, `plans: ${text} → ${JSON.stringify(result)}`);
  return result.plan;
}

describe('media commands in the chat: the plan', () => {
  it('takes the model and parameters from settings; flags override them', () => {
    assert.deepEqual(plan('/image a red square --size 1024x1024'), {
      kind: 'image',
      prompt: 'a red square',
      model: 'openai/gpt-image-1',
      parameters: { size: '1024x1024', quality: 'low' },
      flags: ['size'],
    });
    assert.equal(plan('/video a cat --model google/veo-3').model, 'google/veo-3');
  });

  it('is not about ordinary prompts', () => {
    for (const text of ['hello', '/images of cats', 'draw /image x', '/imagine'])
      assert.equal(planChatMedia(text, settings), undefined, text);
  });

  it('explains bad input: no prompt, a malformed flag, no model at all', () => {
    const errors = ['/image', '/image --size 5', '/image a cat --9lives', '/image "open quote'].map(
      (text) => {
        const result = planChatMedia(text, settings);
        assert.ok(result && !result.ok, text);
        return result.error;
      },
    );
    assert.match(errors[0], /needs a prompt/);
    assert.match(errors[1], /needs a prompt/);
    assert.match(errors[2], /not a valid option name/);
    assert.match(errors[3], /quote is not closed/);
    const none = planChatMedia('/image a cat', { model: '', parameters: {} });
    assert.ok(none && !none.ok);
    assert.match(none.error, /gateway\.media\.model/);
  });

  it('refuses a kind the catalog says the model does not make; /media takes any model', () => {
    const imageOnly = { outputModalities: ['image'], supportedParameters: [] };
    assert.match(checkPlan(plan('/video a cat'), imageOnly) ?? '', /does not make video.*it makes image/);
    assert.match(checkPlan(plan('/audio a cat'), imageOnly) ?? '', /does not make audio/);
    assert.equal(checkPlan(plan('/image a cat'), imageOnly), undefined);
    assert.equal(checkPlan(plan('/media a cat'), imageOnly), undefined);
    // A catalog that does not say, or no entry: the gateway will answer.
    assert.equal(
      checkPlan(plan('/video a cat'), { outputModalities: [], supportedParameters: [] }),
      undefined,
    );
    assert.equal(checkPlan(plan('/video a cat'), undefined), undefined);
  });

  it('refuses a flag the catalog does not list for the model, and only then', () => {
    const listed = { outputModalities: ['image'], supportedParameters: ['size', 'seed'] };
    assert.equal(checkPlan(plan('/image a cat --size 1x1 --seed 3'), listed), undefined);
    // Parameters from settings are the user's own choice: only flags typed now are checked.
    assert.match(
      checkPlan(plan('/image a cat --colour red'), listed) ?? '',
      /does not take --colour\. It takes: --size, --seed/,
    );
    assert.equal(
      checkPlan(plan('/image a cat --colour red'), { outputModalities: ['image'], supportedParameters: [] }),
      undefined,
    );
  });

  it('never throws, and a plan always has a prompt and a model (fuzz)', () => {
    fc.assert(
      fc.property(fc.constantFrom('/image ', '/video ', '/media ', ''), fc.string(), (head, tail) => {
        const result = planChatMedia(head + tail, settings);
        if (result?.ok) {
          assert.ok(result.plan.prompt.trim().length > 0);
          assert.equal(typeof result.plan.model, 'string');
          for (const flag of result.plan.flags) assert.ok(Object.hasOwn(result.plan.parameters, flag));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
