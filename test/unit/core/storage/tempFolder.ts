import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import type { StoreFiles } from '../../../../src/core/storage/storeFiles';

/** Runs `work` at once and, as an async function would, turns what it throws into a rejection. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}

let counter = 0;

/** A real folder on disk as the stores see it, with atomic writes like the extension's. */
export function tempFolder(dir: string): StoreFiles {
  mkdirSync(dir, { recursive: true });
  const at = (name: string) => path.join(dir, name);
  return {
    read: (name) => settle(() => (existsSync(at(name)) ? readFileSync(at(name), 'utf8') : undefined)),
    write: (name, text) =>
      settle(() => {
        const tmp = at(`${name}.tmp-${process.pid}-${counter++}`);
        writeFileSync(tmp, text);
        renameSync(tmp, at(name));
      }),
    delete: (name) => settle(() => unlinkSync(at(name))),
    rename: (from, to) =>
      settle(() => {
        if (existsSync(at(to))) throw new Error(`${to} exists`);
        renameSync(at(from), at(to));
      }),
    list: () => settle(() => (existsSync(dir) ? readdirSync(dir) : [])),
  };
}

/** A folder whose writes fail while `failing()` says so (a full disk, a lost network drive). */
export function flakyFolder(files: StoreFiles, failing: () => boolean): StoreFiles {
  return {
    ...files,
    write: (name, text) =>
      failing() ? Promise.reject(new Error('ENOSPC: no space left on device')) : files.write(name, text),
  };
}

/** An in-memory folder (for fuzzing: thousands of cases without touching the disk). */
export function memoryFolder(
  initial: Record<string, string> = {},
): StoreFiles & { files: Map<string, string> } {
  const files = new Map(Object.entries(initial));
  return {
    files,
    read: (name) => Promise.resolve(files.get(name)),
    write: (name, text) => {
      files.set(name, text);
      return Promise.resolve();
    },
    delete: (name) =>
      files.delete(name) ? Promise.resolve() : Promise.reject(new Error(`${name} does not exist`)),
    rename: (from, to) => {
      const text = files.get(from);
      if (text === undefined || files.has(to)) return Promise.reject(new Error(`cannot rename ${from}`));
      files.delete(from);
      files.set(to, text);
      return Promise.resolve();
    },
    list: () => Promise.resolve([...files.keys()]),
  };
}
