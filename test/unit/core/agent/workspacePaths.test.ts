import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ToolInputError } from '../../../../src/core/agent/types';
import {
  displayPath,
  inGitFolder,
  relativeInside,
  resolveWorkspacePath,
  tooBroadFolder,
  broadFolderReason,
} from '../../../../src/core/agent/workspacePaths';

const one = [{ name: 'app', path: '/home/u/app' }];
const two = [
  { name: 'app', path: '/home/u/app' },
  { name: 'lib', path: '/home/u/lib' },
];

function refused(path: string, folders = one): string {
  try {
    resolveWorkspacePath(path, folders);
  } catch (error) {
    assert.ok(error instanceof ToolInputError, `not a ToolInputError: ${String(error)}`);
    return error.message;
  }
  assert.fail(`${path} was not refused`);
}

describe('agent tools: workspace paths', () => {
  it('resolves relative paths against the first folder, with . and .. inside it', () => {
    assert.deepEqual(resolveWorkspacePath('src/a.ts', one), { folder: 0, relative: 'src/a.ts' });
    assert.deepEqual(resolveWorkspacePath('./src/../b.ts', one), { folder: 0, relative: 'b.ts' });
    assert.deepEqual(resolveWorkspacePath('src\\win\\c.ts', one), { folder: 0, relative: 'src/win/c.ts' });
    assert.deepEqual(resolveWorkspacePath('.', one), { folder: 0, relative: '' });
  });

  it('refuses .. that leaves the folder, absolute paths elsewhere, and the home folder', () => {
    assert.match(refused('../secret.txt'), /climbs out of the workspace/);
    assert.match(refused('src/../../x'), /climbs out/);
    assert.match(refused('/etc/passwd'), /outside the workspace folders/);
    assert.match(refused('/home/u/application/x'), /outside/);
    assert.match(refused('~/.ssh/id_rsa'), /home folder/);
    assert.match(refused('C:\\Windows\\system.ini'), /outside/);
    assert.match(refused('a\u0000b'), /control characters/);
    assert.match(refused('x', []), /No folder is open/);
  });

  it('accepts absolute paths inside a folder and picks the folder by name with several', () => {
    assert.deepEqual(resolveWorkspacePath('/home/u/app/src/a.ts', one), { folder: 0, relative: 'src/a.ts' });
    assert.deepEqual(resolveWorkspacePath('/home/u/lib/x.ts', two), { folder: 1, relative: 'x.ts' });
    assert.deepEqual(resolveWorkspacePath('lib/x.ts', two), { folder: 1, relative: 'x.ts' });
    assert.deepEqual(resolveWorkspacePath('other/x.ts', two), { folder: 0, relative: 'other/x.ts' });
    assert.equal(displayPath({ folder: 1, relative: 'x.ts' }, two), 'lib/x.ts');
    assert.equal(displayPath({ folder: 0, relative: 'x.ts' }, one), 'x.ts');
  });

  it('compares Windows paths without case, POSIX paths with it', () => {
    assert.equal(relativeInside('C:\\Work\\App', 'c:/work/app/src/A.ts'), 'src/A.ts');
    assert.equal(relativeInside('/work/App', '/work/app/x'), undefined);
    assert.equal(relativeInside('//server/share', '//server/share/x'), 'x');
    assert.equal(relativeInside('/server/share', '//server/share/x'), undefined);
  });

  it('never resolves anything to a place outside the folder (property)', () => {
    const segment = fc.constantFrom('..', '.', 'a', 'b', '', '...', 'app', 'u', '\\', 'C:');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 12 }), fc.boolean(), (parts, absolute) => {
        const path = (absolute ? '/home/u/' : '') + parts.join('/');
        try {
          const { folder, relative } = resolveWorkspacePath(path, one);
          assert.equal(folder, 0);
          const full = `/home/u/app/${relative}`;
          assert.equal(relativeInside('/home/u/app', full), relative);
          assert.ok(!relative.split('/').includes('..'));
        } catch (error) {
          assert.ok(error instanceof ToolInputError);
        }
      }),
    );
  });

  it('knows a .git folder in any form the disk accepts', () => {
    for (const path of [
      '.git',
      '.git/config',
      '.GIT/hooks/pre-commit',
      'sub/.git/config',
      '.git./config',
      '.git /x',
      'GIT~1/config',
      'a\\.Git\\config',
    ])
      assert.ok(inGitFolder(path), path);
    for (const path of [
      '',
      'src/a.ts',
      '.gitignore',
      '.github/workflows/ci.yml',
      'x.git/y',
      'git/config',
      '.gitattributes',
    ])
      assert.ok(!inGitFolder(path), path);
  });

  it('finds folders too broad for the tools: a disk root, the home folder and above', () => {
    for (const folder of ['/', 'C:\\', 'c:/', '/home/u', '/home', '/home/u/', '/home/u/app/..'])
      assert.ok(tooBroadFolder(folder, '/home/u'), folder);
    assert.ok(tooBroadFolder('C:\\Users', 'C:\\Users\\me'));
    for (const folder of ['/home/u/app', '/srv/app', '/home/uv'])
      assert.ok(!tooBroadFolder(folder, '/home/u'), folder);
  });

  it('finds settings folders in the home folder and system folders too broad, with the reason', () => {
    const home = '/home/u';
    const corpus: Array<[string, ReturnType<typeof broadFolderReason>]> = [
      ['/', 'root'],
      ['D:/', 'root'],
      ['/home/u', 'home'],
      ['/home', 'home'],
      ['/home/u/.aws', 'home settings'],
      ['/home/u/.ssh', 'home settings'],
      ['/home/u/.config', 'home settings'],
      ['/home/u/.config/gh', 'home settings'],
      ['/home/u/.vscode/extensions/x', 'home settings'],
      ['/home/u/Library/Application Support', 'home settings'],
      ['/proc', 'system'],
      ['/proc/self/cwd', 'system'],
      ['/sys/kernel', 'system'],
      ['/dev', 'system'],
      ['/etc', 'system'],
      ['/etc/nginx', 'system'],
      ['/private/etc', 'system'],
      ['C:\\Windows\\System32', 'system'],
      // Projects, including ones whose names start with a dot away from the home folder.
      ['/home/u/app', undefined],
      ['/home/u/code/.dotfiles-site', undefined],
      ['/home/u/src/.config', undefined],
      ['/home/uv/.aws', undefined],
      ['/srv/app', undefined],
      ['/workspace', undefined],
      ['/private/var/folders/x/app', undefined],
      ['/tmp/proc', undefined],
      ['/home/u/etc', undefined],
    ];
    for (const [folder, reason] of corpus) assert.equal(broadFolderReason(folder, home), reason, folder);
    assert.equal(broadFolderReason('C:\\Users\\me\\AppData\\Roaming', 'C:\\Users\\me'), 'home settings');
    assert.equal(broadFolderReason('c:/users/ME/.aws', 'C:\\Users\\me'), 'home settings');
    assert.equal(broadFolderReason('/home/u/.aws', undefined), undefined);
  });
});
