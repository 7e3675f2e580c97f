import * as path from 'node:path';

/** The repository root (this file compiles to out/test/launch/). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** Scratch space for test runs: user data, extensions, workspaces. Ignored by git. */
export const workRoot = path.join(repoRoot, '.test-work');
