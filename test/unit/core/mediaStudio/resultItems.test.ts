/**
 * A job's results as the views get them, with the real client against the simulator and a real
 * folder on disk in place of the extension's storage.
 */
import * as assert from 'node:assert/strict';
import {
  existsSync,
  mkdtempSync,
  openSync,
  closeSync,
  readSync,
  fstatSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { extensionForMime } from '../../../../src/api/media';
import type { GatewayClient } from '../../../../src/api/client';
import type { MediaOutput } from '../../../../src/api/types';
import {
  MAX_TEXT_SHOWN,
  resultItems,
  shownText,
  textPreview,
} from '../../../../src/core/mediaStudio/resultItems';
import type { ResultFiles, ResultItem } from '../../../../src/core/mediaStudio/resultItems';
import { finishedMedia, makeClient, withSimulator } from '../../api/helpers';

/** Result files in a temporary folder, as the host keeps them (one per job and index). */
function folderFiles(
  dir: string,
  client: GatewayClient,
  learned: Array<[number, string]> = [],
): ResultFiles<string> & { downloads: number } {
  const files = {
    downloads: 0,
    fileFor: (index: number, mimeType: string | undefined) =>
      path.join(dir, `result-${index + 1}.${extensionForMime(mimeType)}`),
    legacyFileFor: () => undefined,
    exists: (file: string) => Promise.resolve(existsSync(file)),
    fromFileUrl: (url: string) => new URL(url).pathname,
    write: (file: string, bytes: Uint8Array) => Promise.resolve(writeFileSync(file, bytes)),
    writeData: (index: number, output: { data: string; mimeType: string }) => {
      const file = files.fileFor(index, output.mimeType);
      writeFileSync(file, Buffer.from(output.data, 'base64'));
      return Promise.resolve(file);
    },
    download: (url: string, signal: AbortSignal) => {
      files.downloads++;
      return client.download(url, { signal });
    },
    readStart: (file: string, maxBytes: number) => {
      const fd = openSync(file, 'r');
      try {
        const size = fstatSync(fd).size;
        const bytes = new Uint8Array(Math.min(size, maxBytes));
        const read = readSync(fd, bytes, 0, bytes.length, 0);
        return Promise.resolve({ bytes: bytes.subarray(0, read), size });
      } finally {
        closeSync(fd);
      }
    },
    learned: (index: number, mimeType: string) => void learned.push([index, mimeType]),
  };
  return files;
}

/** One signal for a whole view, as the host has: its downloads all listen to it. */
function signal(): AbortSignal {
  const controller = new AbortController();
  setMaxListeners(64, controller.signal);
  return controller.signal;
}

const TEXT = (prompt: string) => `A text result for the prompt: ${prompt}`;

describe('core: a job’s results as the views show them', () => {
  const ctx = withSimulator();
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'gateway-results-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The items of a new job (each job's files in a folder of their own), or of `outputs`. */
  async function itemsOf(prompt: string, outputs?: MediaOutput[]): Promise<ResultItem<string>[]> {
    const { client } = makeClient(ctx.sim);
    const record = outputs ? undefined : await finishedMedia(client, prompt);
    const jobDir = mkdtempSync(path.join(dir, 'job-'));
    return resultItems(outputs ?? record!.outputs, folderFiles(jobDir, client), signal());
  }

  it('F9: a text result shows its text: a data:text/plain URL, a .txt link, a text/plain link without a type', async () => {
    for (const marker of ['text-data', 'text-url', 'text-untyped-url']) {
      const prompt = `a haiku #sim:${marker}`;
      const [item] = await itemsOf(prompt);
      assert.equal(item.kind, 'text', marker);
      assert.equal(item.text, TEXT(prompt), marker);
      assert.ok(item.file && existsSync(item.file), `${marker}: kept as a file, which Save copies`);
    }
    // Inline text, as before.
    const [inline] = await itemsOf('a haiku #sim:text');
    assert.deepEqual(inline, { kind: 'text', text: TEXT('a haiku #sim:text') });
  });

  it('F9: a link without a type is kept under the type its download gave, and found again as text', async () => {
    const { client } = makeClient(ctx.sim);
    const prompt = 'untyped #sim:text-untyped-url';
    const record = await finishedMedia(client, prompt);
    const learned: Array<[number, string]> = [];
    const files = folderFiles(dir, client, learned);
    const [first] = await resultItems(record.outputs, files, signal());
    assert.match(first.file ?? '', /result-1\.txt$/);
    assert.deepEqual(learned, [[0, 'text/plain']]);
    // The job remembers the type (the host patches the output), so the next view finds the file.
    const output = record.outputs[0];
    assert.ok(output.kind === 'url' && output.mimeType === undefined);
    const typed: MediaOutput[] = [{ ...output, mimeType: 'text/plain' }];
    const [again] = await resultItems(typed, files, signal());
    assert.equal(files.downloads, 1, 'not downloaded twice');
    assert.deepEqual([again.kind, again.text], ['text', TEXT(prompt)]);
  });

  it('F9: a long text result is shown cut, saying so; a large text file is read only in part', async () => {
    const long = 'é'.repeat(MAX_TEXT_SHOWN * 3);
    assert.match(shownText(long), /… The text goes on; open or save the result to read all of it\.$/);
    assert.equal(shownText(long).indexOf('\n\n…'), MAX_TEXT_SHOWN);
    const big = path.join(dir, 'big.txt');
    writeFileSync(big, long);
    const [item] = await itemsOf('', [{ kind: 'url', url: `file://${big}`, mimeType: 'text/plain' }]);
    assert.equal(item.kind, 'text');
    assert.ok(item.text!.startsWith('é'.repeat(100)));
    assert.ok(item.text!.length < MAX_TEXT_SHOWN + 200, String(item.text!.length));
    assert.match(item.text!, /The text goes on \(117 KB in all\)/);
    // A character cut in half at the end of what was read is dropped, not garbled.
    assert.equal(
      textPreview(new TextEncoder().encode('ab€').subarray(0, 4), 5),
      'ab\n\n… The text goes on (5 B in all); open or save the result to read all of it.',
    );
  });

  it('F4: a stored job with more results than the cap shows and downloads only the first 16', async () => {
    const { client } = makeClient(ctx.sim);
    const record = await finishedMedia(client, 'a fox #sim:url');
    const output = record.outputs[0];
    const many = Array.from({ length: 100 }, () => output);
    const files = folderFiles(dir, client);
    const items = await resultItems(
      many,
      { ...files, fileFor: (i, m) => path.join(dir, `r${i}.${extensionForMime(m)}`) },
      signal(),
    );
    assert.equal(items.length, 16);
    assert.ok(items.every((item) => item.kind === 'image' && !item.problem));
  });
});
