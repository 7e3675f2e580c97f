/**
 * Entry of the integration suite, loaded by VS Code as `extensionTestsPath`. It runs inside the
 * real extension host, with either launcher (VS Code server offline, or @vscode/test-electron).
 */
import * as path from 'node:path';
import { findTests } from '../launch/results';
import { runSuiteFiles } from './runner';

export async function run(): Promise<void> {
  // The order is explicit, not a matter of file names: the observers go in before every test, the
  // activation check runs before any test stores a key or makes the extension log failures on
  // purpose, and the secrets sweep runs after all of them, over everything they showed, sent and stored.
  await runSuiteFiles('Gateway AI integration suite', [
    path.join(__dirname, 'observeRun.js'),
    path.join(__dirname, 'activation.js'),
    ...findTests(__dirname),
    path.join(__dirname, 'secretsSweep.js'),
  ]);
}
