/**
 * Runs the demo's preparation (scripts/demoWorkspace.mjs, an ES module) in a child Node, so the
 * tests check what `npm run demo` really writes.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './paths';

export interface PreparedDemo {
  workspace: string;
  launcher: string;
  tryMe: string;
  /** The user settings the demo's VS Code starts with: the simulator as the gateway, the models. */
  userSettings: Record<string, unknown>;
}

export function prepareDemo(dir: string, baseUrl: string): PreparedDemo {
  const module = pathToFileURL(path.join(repoRoot, 'scripts', 'demoWorkspace.mjs')).href;
  const script = `import { prepareDemo } from ${JSON.stringify(module)};
process.stdout.write(JSON.stringify(prepareDemo({ dir: ${JSON.stringify(dir)}, baseUrl: ${JSON.stringify(baseUrl)} })));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out) as PreparedDemo;
}
