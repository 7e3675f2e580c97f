/**
 * The .vsix that this test run built: scripts/test.mjs packages once (the same vsce command as
 * `npm run package`) and names the file in GATEWAY_VSIX for the package and e2e tiers. A tier run
 * on its own packages here instead, once per process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, workRoot } from './paths';

let built: string | undefined;

export function packagedVsix(): string {
  const given = process.env.GATEWAY_VSIX;
  if (given) {
    if (!existsSync(given)) throw new Error(`GATEWAY_VSIX names ${given}, which does not exist`);
    return given;
  }
  if (!built) {
    const { name, version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    const out = path.join(workRoot, 'vsix', `${name}-${version}.vsix`);
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'package-vsix.mjs'), '--out', out], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    built = out;
  }
  return built;
}
