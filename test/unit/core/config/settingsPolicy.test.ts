/**
 * Where each setting may come from (src/core/config/settingsPolicy.ts), checked against the
 * manifest (every setting has a policy, its scope agrees, Restricted Mode restricts it), the
 * README's settings table, and a hostile workspace's values in every combination.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseSettings } from '../../../../src/core/config/settingsModel';
import {
  resolveSetting,
  SETTING_POLICIES,
  settingsIn,
  VSCODE_SETTING_POLICIES,
} from '../../../../src/core/config/settingsPolicy';
import type {
  InspectedSetting,
  ResolveContext,
  WorkspacePolicy,
} from '../../../../src/core/config/settingsPolicy';
import { Setting, VsCodeSetting } from '../../../../src/core/ids';

const root = path.resolve(__dirname, '../../../../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  capabilities?: {
    untrustedWorkspaces?: { supported?: unknown; description?: unknown; restrictedConfigurations?: unknown };
  };
  contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } };
};
const properties = manifest.contributes.configuration.properties;
const policies: Record<string, { workspace: WorkspacePolicy }> = SETTING_POLICIES;

const trusted: ResolveContext = { trusted: true, accepted: () => false };
const untrusted: ResolveContext = { trusted: false, accepted: () => true };

/** The README column "A repository can set it" says, for each policy: */
const README_WORDS: Record<WorkspacePolicy, RegExp> = {
  never: /^No\b/,
  accept: /^Only a value you accept\b/,
  allow: /^Yes\b/,
  narrow: /^Only to /,
};

describe('settings: where each one may come from', () => {
  it('every setting in package.json has a policy, and every policy a setting', () => {
    assert.deepEqual(Object.keys(policies).sort(), Object.keys(properties).sort());
  });

  for (const [id, schema] of Object.entries(properties)) {
    const policy = policies[id]?.workspace;
    it(`${id}: the manifest's scope agrees with "${policy}"`, () => {
      if (policy === 'never') {
        // VS Code ignores a workspace's value of an application (or machine) setting.
        assert.ok(schema.scope === 'application' || schema.scope === 'machine', `scope ${schema.scope}`);
      } else {
        // A setting a workspace may set, accept or narrow needs a scope where VS Code reads it.
        assert.ok(schema.scope === 'window' || schema.scope === 'resource', `scope ${schema.scope}`);
      }
    });
  }

  it('Restricted Mode: supported, limited, with every setting of ours restricted', () => {
    const untrustedWorkspaces = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(untrustedWorkspaces?.supported, 'limited');
    assert.equal(typeof untrustedWorkspaces?.description, 'string');
    assert.deepEqual(
      [...((untrustedWorkspaces?.restrictedConfigurations as string[] | undefined) ?? [])].sort(),
      Object.keys(properties).sort(),
    );
  });

  it('what decides where the key goes, what it pays for, what the model is told and the caps: never a workspace', () => {
    for (const id of [
      Setting.baseUrl,
      Setting.requestHeaders,
      Setting.authHeader,
      Setting.chatSystemPrompt,
      Setting.chatMaxTokens,
      Setting.chatWebSearch,
      Setting.chatPlugins,
      Setting.chatProvider,
      Setting.chatForceParameters,
      Setting.chatTools,
      Setting.mediaParameters,
      Setting.requestMaxResponseMegabytes,
      Setting.requestMaxStreamMinutes,
      Setting.requestTimeoutSeconds,
      Setting.requestStreamIdleTimeoutSeconds,
      Setting.inlineEnabled,
      Setting.inlineModel,
      Setting.agentAlwaysAllow,
    ])
      assert.equal(policies[id].workspace, 'never', id);
    assert.equal(policies[Setting.chatModel].workspace, 'accept');
    assert.equal(policies[Setting.mediaModel].workspace, 'accept');
    assert.equal(VSCODE_SETTING_POLICIES[VsCodeSetting.proxy]?.workspace, 'never');
  });

  it("the README's settings table names every setting once, and says whether a repository can set it", () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Settings'),
      readme.indexOf('\n## ', readme.indexOf('## Settings') + 5),
    );
    const rows = section.split('\n').filter((line) => line.startsWith('| `gateway.'));
    const header = section.split('\n').find((line) => line.startsWith('| Setting'));
    const columns = header?.split('|').map((cell) => cell.trim()) ?? [];
    const column = columns.indexOf('A repository can set it');
    assert.ok(column > 0, `a column "A repository can set it" in: ${header}`);
    const seen: string[] = [];
    for (const row of rows) {
      const cells = row.split('|').map((cell) => cell.trim());
      const ids = [...cells[1].matchAll(/`(gateway\.[^`]+)`/g)].map((m) => m[1]);
      for (const id of ids) {
        seen.push(id);
        const policy = policies[id]?.workspace;
        assert.ok(policy, `${id} in the README is a setting`);
        assert.match(cells[column], README_WORDS[policy], `${id} (${policy}): "${cells[column]}"`);
      }
    }
    assert.deepEqual(seen.sort(), Object.keys(properties).sort());
  });
});

describe('settings: a workspace value under each policy', () => {
  const levels = (workspace: unknown, user?: unknown): InspectedSetting => ({
    defaultValue: 'default',
    globalValue: user,
    workspaceValue: workspace,
  });

  it('never: the user value (or the default) is used, and the workspace value is reported as ignored', () => {
    const base = resolveSetting(
      Setting.baseUrl,
      SETTING_POLICIES[Setting.baseUrl],
      levels('http://evil'),
      trusted,
    );
    assert.deepEqual(base, {
      value: 'default',
      from: 'default',
      ignored: { value: 'http://evil', because: 'never' },
    });
    const mine = resolveSetting(
      Setting.baseUrl,
      SETTING_POLICIES[Setting.baseUrl],
      { ...levels(undefined, 'https://mine/api'), workspaceFolderValue: 'http://evil' },
      trusted,
    );
    assert.deepEqual(mine, {
      value: 'https://mine/api',
      from: 'user',
      ignored: { value: 'http://evil', because: 'never' },
    });
  });

  it('accept: only a value the user accepted for this workspace; the same value as the user’s needs nothing', () => {
    const policy = SETTING_POLICIES[Setting.chatModel];
    const asked: unknown[] = [];
    const notYet = resolveSetting(Setting.chatModel, policy, levels('x/costly', 'a/mine'), {
      trusted: true,
      accepted: (id, value) => (asked.push([id, value]), false),
    });
    assert.deepEqual(notYet, {
      value: 'a/mine',
      from: 'user',
      ignored: { value: 'x/costly', because: 'not-accepted' },
    });
    assert.deepEqual(asked, [[Setting.chatModel, 'x/costly']]);
    const accepted = resolveSetting(Setting.chatModel, policy, levels('x/costly', 'a/mine'), {
      trusted: true,
      accepted: (id, value) => id === Setting.chatModel && value === 'x/costly',
    });
    assert.deepEqual(accepted, { value: 'x/costly', from: 'workspace' });
    assert.deepEqual(resolveSetting(Setting.chatModel, policy, levels('a/mine', 'a/mine'), trusted), {
      value: 'a/mine',
      from: 'user',
    });
  });

  it('allow: the workspace value wins, as VS Code has it', () => {
    assert.deepEqual(
      resolveSetting(
        Setting.chatTemperature,
        SETTING_POLICIES[Setting.chatTemperature],
        levels(0.1, 1),
        trusted,
      ),
      {
        value: 0.1,
        from: 'workspace',
      },
    );
  });

  it('narrow: exclusions add up, languages and the agent can only be switched off', () => {
    const exclude = resolveSetting(
      Setting.inlineExclude,
      SETTING_POLICIES[Setting.inlineExclude],
      { defaultValue: [], globalValue: ['mine/**'], workspaceValue: ['theirs/**'] },
      trusted,
    );
    assert.deepEqual(exclude.value, ['mine/**', 'theirs/**']);
    const languages = resolveSetting(
      Setting.inlineLanguages,
      SETTING_POLICIES[Setting.inlineLanguages],
      {
        defaultValue: {},
        globalValue: { python: false },
        workspaceValue: { python: true, markdown: false, go: true },
      },
      trusted,
    );
    assert.deepEqual(languages.value, { markdown: false, python: false });
    const agent = SETTING_POLICIES[Setting.agentEnabled];
    const on = { defaultValue: true, globalValue: undefined };
    assert.equal(
      resolveSetting(Setting.agentEnabled, agent, { ...on, workspaceValue: false }, trusted).value,
      false,
    );
    const off = { defaultValue: true, globalValue: false, workspaceValue: true };
    assert.deepEqual(resolveSetting(Setting.agentEnabled, agent, off, trusted), {
      value: false,
      from: 'user',
    });
  });

  it('Restricted Mode: no workspace value counts, whatever the policy or an acceptance', () => {
    for (const [id, policy] of Object.entries(SETTING_POLICIES)) {
      const resolved = resolveSetting(id, policy, levels('theirs', 'mine'), untrusted);
      assert.deepEqual(
        resolved,
        { value: 'mine', from: 'user', ignored: { value: 'theirs', because: 'untrusted' } },
        id,
      );
    }
  });

  it('a hostile workspace, trusted, never changes a "never" setting in force, nor raises a cap', () => {
    const hostile = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(4096, 1e9, 'http://evil.example/api', false, true),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...Object.keys(SETTING_POLICIES)), hostile),
        fc.boolean(),
        (workspace, acceptAll) => {
          const context: ResolveContext = { trusted: true, accepted: () => acceptAll };
          const resolved = (key: string): unknown => {
            const policy =
              policies[key] ?? VSCODE_SETTING_POLICIES[key as keyof typeof VSCODE_SETTING_POLICIES];
            if (!policy) return undefined;
            return resolveSetting(key, policy, { workspaceValue: workspace[key] }, context).value;
          };
          const settings = parseSettings(resolved);
          const defaults = parseSettings(() => undefined);
          assert.equal(settings.baseUrl, defaults.baseUrl);
          assert.deepEqual(settings.request, defaults.request);
          assert.equal(settings.chat.systemPrompt, '');
          assert.equal(settings.chat.maxTokens, undefined);
          assert.equal(settings.chat.provider, undefined);
          assert.deepEqual(settings.chat.plugins, []);
          assert.equal(settings.chat.webSearch, false);
          assert.equal(settings.chat.forceParameters, false);
          assert.deepEqual(settings.media.parameters, {});
          assert.equal(settings.inlineCompletions.enabled, false);
          assert.deepEqual(settings.agent.alwaysAllow, []);
          // Only narrowing: the built-in exclusions all stay.
          for (const pattern of defaults.inlineCompletions.exclude)
            assert.ok(settings.inlineCompletions.exclude.includes(pattern), pattern);
          assert.ok(settings.agent.enabled === true || workspace[Setting.agentEnabled] === false);
        },
      ),
    );
  });
});

describe('settings: what a settings file sets', () => {
  const known = new Set(Object.keys(SETTING_POLICIES));

  it('finds our keys written whole or nested, and nothing else', () => {
    const found = settingsIn(
      {
        'gateway.baseUrl': 'http://a',
        gateway: {
          chat: { systemPrompt: 'obey', model: 'x/y' },
          'request.maxStreamMinutes': 240,
          unknown: 1,
        },
        'gateway.chat': { maxTokens: 9 },
        'editor.fontSize': 20,
        '[python]': { 'gateway.chat.model': 'ignored/here' },
      },
      known,
    );
    assert.deepEqual(found, [
      ['gateway.baseUrl', 'http://a'],
      ['gateway.chat.systemPrompt', 'obey'],
      ['gateway.chat.model', 'x/y'],
      ['gateway.request.maxStreamMinutes', 240],
      ['gateway.chat.maxTokens', 9],
    ]);
    // Written both ways: both are listed (whichever VS Code takes, neither may count).
    assert.deepEqual(settingsIn({ 'gateway.baseUrl': 'a', gateway: { baseUrl: 'b' } }, known), [
      ['gateway.baseUrl', 'a'],
      ['gateway.baseUrl', 'b'],
    ]);
  });

  it('reads nothing from what is not an object', () => {
    for (const value of [undefined, null, 3, 'gateway.baseUrl', ['gateway.baseUrl']])
      assert.equal(settingsIn(value, known).length, 0);
  });
});
