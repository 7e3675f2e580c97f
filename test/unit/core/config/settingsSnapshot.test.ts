/**
 * Settings resolved on first use (src/core/config/settingsSnapshot.ts): nothing is inspected until
 * a section is read, the values are those an eager read of every setting gives, and a change is
 * told for exactly the settings whose value in force changed, read before or not.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseSettings, parseSettingsLazily } from '../../../../src/core/config/settingsModel';
import type { GatewaySettings } from '../../../../src/core/config/settingsModel';
import { SettingsSnapshot } from '../../../../src/core/config/settingsSnapshot';
import {
  resolveSetting,
  SETTING_POLICIES,
  VSCODE_SETTING_POLICIES,
} from '../../../../src/core/config/settingsPolicy';
import type {
  InspectedSetting,
  ResolveContext,
  SettingPolicy,
} from '../../../../src/core/config/settingsPolicy';
import { Setting, VsCodeSetting } from '../../../../src/core/ids';

const POLICIES: ReadonlyMap<string, SettingPolicy> = new Map([
  ...Object.entries(SETTING_POLICIES),
  ...Object.entries(VSCODE_SETTING_POLICIES).filter((e): e is [string, SettingPolicy] => !!e[1]),
]);
const KEYS = [...POLICIES.keys()];
const CHAT_KEYS = KEYS.filter((key) => key.startsWith('gateway.chat.'));

const trusted: ResolveContext = { trusted: true, accepted: () => false };
const untrusted: ResolveContext = { trusted: false, accepted: () => false };

type Levels = Record<string, InspectedSetting>;

/** A configuration whose levels can be changed, counting what was inspected. */
function configuration(initial: Levels = {}) {
  const state = { levels: initial, asked: [] as string[] };
  const inspect = (key: string): InspectedSetting | undefined => {
    state.asked.push(key);
    return state.levels[key];
  };
  return { state, inspect };
}

/** What the service did before: every setting inspected and resolved at once. */
function eager(
  levels: Levels,
  context: ResolveContext,
): { settings: GatewaySettings; values: Map<string, unknown> } {
  const values = new Map(
    KEYS.map((key) => [key, resolveSetting(key, POLICIES.get(key)!, levels[key] ?? {}, context).value]),
  );
  return { settings: parseSettings((key) => values.get(key)), values };
}

function eagerChanged(before: Map<string, unknown>, after: Map<string, unknown>): string[] {
  return KEYS.filter((key) => JSON.stringify(before.get(key)) !== JSON.stringify(after.get(key)));
}

/** Any value a settings file can hold, at any level, for any of our settings. */
const levelsArbitrary: fc.Arbitrary<Levels> = fc.dictionary(
  fc.constantFrom(...KEYS),
  fc.record(
    {
      defaultValue: fc.oneof(fc.jsonValue(), fc.constantFrom('a/b', 30, true, false)),
      globalValue: fc.oneof(fc.jsonValue(), fc.constantFrom('a/b', 30, true, false)),
      workspaceValue: fc.oneof(fc.jsonValue(), fc.constantFrom('c/d', 4096, true, false)),
    },
    { requiredKeys: [] },
  ),
);

describe('settings: resolved on first use', () => {
  it('parsing lazily gives what parsing every setting gives, section by section', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KEYS), fc.jsonValue()), (values) => {
        const get = (key: string) => (Object.hasOwn(values, key) ? values[key] : undefined);
        const lazy = parseSettingsLazily(get);
        assert.deepEqual({ ...lazy }, parseSettings(get));
        assert.equal(JSON.stringify(lazy), JSON.stringify(parseSettings(get)));
      }),
    );
  });

  it('a section is parsed once, from its own settings only', () => {
    const asked: string[] = [];
    const settings = parseSettingsLazily((key) => {
      asked.push(key);
      return undefined;
    });
    assert.deepEqual(asked, []);
    const chat = settings.chat;
    assert.equal(settings.chat, chat);
    assert.deepEqual([...asked].sort(), [...CHAT_KEYS].sort());
    void settings.proxy;
    assert.deepEqual(asked.slice(CHAT_KEYS.length), [VsCodeSetting.proxy]);
  });

  it('making a snapshot inspects nothing; reading a section inspects its settings once', () => {
    const { state, inspect } = configuration({ [Setting.chatModel]: { globalValue: 'mine/model' } });
    const snapshot = new SettingsSnapshot(POLICIES, inspect, trusted);
    assert.deepEqual(state.asked, []);
    assert.equal(snapshot.settings.chat.model, 'mine/model');
    assert.equal(snapshot.settings.chat.model, 'mine/model');
    assert.deepEqual([...state.asked].sort(), [...CHAT_KEYS].sort());
    assert.equal(snapshot.has(Setting.baseUrl), false);
    snapshot.all();
    assert.deepEqual([...state.asked].sort(), [...KEYS].sort());
  });

  it('the values in force are those of an eager read, under every policy and trust', () => {
    fc.assert(
      fc.property(levelsArbitrary, fc.boolean(), fc.boolean(), (levels, isTrusted, acceptAll) => {
        const context: ResolveContext = { trusted: isTrusted, accepted: () => acceptAll };
        const { inspect } = configuration(levels);
        const snapshot = new SettingsSnapshot(POLICIES, inspect, context);
        assert.deepEqual({ ...snapshot.settings }, eager(levels, context).settings);
        for (const [key, resolved] of snapshot.all())
          assert.deepEqual(resolved, resolveSetting(key, POLICIES.get(key)!, levels[key] ?? {}, context));
      }),
    );
  });

  it('a change is told for exactly the values that changed, whichever sections were read before', () => {
    fc.assert(
      fc.property(
        levelsArbitrary,
        levelsArbitrary,
        fc.subarray(KEYS),
        fc.boolean(),
        fc.boolean(),
        (first, second, read, acceptedBefore, acceptedAfter) => {
          const contextBefore: ResolveContext = { trusted: true, accepted: () => acceptedBefore };
          const contextAfter: ResolveContext = { trusted: true, accepted: () => acceptedAfter };
          const { state, inspect } = configuration(first);
          const before = new SettingsSnapshot(POLICIES, inspect, contextBefore);
          for (const key of read) before.get(key);
          // The configuration changes; the event says which settings it affects.
          const next: Levels = { ...first, ...second };
          state.levels = next;
          const affected = new Set(Object.keys(second));
          const after = new SettingsSnapshot(POLICIES, inspect, contextAfter);
          const changed = SettingsSnapshot.changedKeys(before, after, (key) => !affected.has(key));

          const expected = eagerChanged(eager(first, contextBefore).values, eager(next, contextAfter).values);
          // Every real change is told; a setting told without one was never read and its levels changed.
          for (const key of expected) assert.ok(changed.includes(key), key);
          for (const key of changed.filter((k) => !expected.includes(k)))
            assert.ok(!read.includes(key) && affected.has(key), key);
          // The old snapshot keeps its values, and asks VS Code for nothing more.
          const asked = state.asked.length;
          for (const key of KEYS) {
            const kept = before.get(key)!.value;
            if (read.includes(key) || !affected.has(key))
              assert.deepEqual(
                kept,
                resolveSetting(key, POLICIES.get(key)!, first[key] ?? {}, contextBefore).value,
              );
          }
          void before.settings.media;
          assert.equal(state.asked.length, asked);
        },
      ),
    );
  });

  it('accepting a workspace value is told for that setting, read before or not', () => {
    const levels: Levels = {
      [Setting.chatModel]: { globalValue: 'mine/model', workspaceValue: 'theirs/model' },
      [Setting.mediaModel]: { globalValue: 'mine/media', workspaceValue: 'theirs/media' },
    };
    for (const readFirst of [false, true]) {
      const { inspect } = configuration(levels);
      const before = new SettingsSnapshot(POLICIES, inspect, trusted);
      if (readFirst) assert.equal(before.settings.chat.model, 'mine/model');
      const accepted: ResolveContext = { trusted: true, accepted: (id) => id === Setting.chatModel };
      const after = new SettingsSnapshot(POLICIES, inspect, accepted);
      assert.deepEqual(
        SettingsSnapshot.changedKeys(before, after, () => true),
        [Setting.chatModel],
      );
      assert.equal(before.settings.chat.model, 'mine/model');
      assert.equal(after.settings.chat.model, 'theirs/model');
    }
  });

  it('granting trust is told only for the values it changes, read before or not', () => {
    const levels: Levels = {
      [Setting.chatTemperature]: { globalValue: 0.2, workspaceValue: 0.9 },
      [Setting.baseUrl]: { globalValue: 'https://mine.example', workspaceValue: 'https://evil.example' },
    };
    for (const readFirst of [false, true]) {
      const { inspect } = configuration(levels);
      const before = new SettingsSnapshot(POLICIES, inspect, untrusted);
      if (readFirst) void before.settings.chat;
      const after = new SettingsSnapshot(POLICIES, inspect, trusted);
      // Untrusted, values came from the user's level alone, which trust does not change.
      assert.deepEqual(
        SettingsSnapshot.changedKeys(before, after, () => true),
        [Setting.chatTemperature],
      );
      assert.equal(before.settings.chat.temperature, 0.2);
      assert.equal(after.settings.chat.temperature, 0.9);
      assert.equal(after.settings.baseUrl, 'https://mine.example');
    }
  });

  it('a setting never read whose levels changed unseen is told as changed', () => {
    const { state, inspect } = configuration({});
    const before = new SettingsSnapshot(POLICIES, inspect, trusted);
    state.levels = {};
    const after = new SettingsSnapshot(POLICIES, inspect, trusted);
    assert.deepEqual(
      SettingsSnapshot.changedKeys(before, after, () => false),
      KEYS,
    );
    // Read before: compared, so nothing is told.
    const again = new SettingsSnapshot(POLICIES, inspect, trusted);
    assert.deepEqual(
      SettingsSnapshot.changedKeys(after, again, () => false),
      [],
    );
  });
});
