/**
 * The one bounded reader of workspace files (issue 43, item 3), against real files: a link to
 * /dev/zero, a FIFO nobody writes, a 1 GB sparse file, a folder, a /proc file whose size says 0,
 * and, as a property, files of any size around the cap.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { readBounded, sizeText, textOf } from '../../../src/host/boundedRead';

const posix = process.platform !== 'win32';

describe('readBounded: a regular file under its cap, by real path, or why not', function () {
  this.timeout(20_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bounded-read-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads a small file whole, through a link, and says where it really is', async () => {
    const file = path.join(dir, 'mcp.json');
    fs.writeFileSync(file, '{"servers":{}}');
    fs.symlinkSync(file, path.join(dir, 'link.json'));
    const read = await readBounded(path.join(dir, 'link.json'), 1024);
    assert.ok(read.ok);
    assert.equal(textOf(read.bytes), '{"servers":{}}');
    assert.equal(read.realPath, fs.realpathSync(file));
  });

  it('a missing file is missing, and nothing to tell', async () => {
    const read = await readBounded(path.join(dir, 'nowhere', 'AGENTS.md'), 1024);
    assert.deepEqual(read, { ok: false, missing: true, reason: 'it does not exist' });
  });

  it('refuses a link to /dev/zero at once, without reading it', async function () {
    if (!posix || !fs.existsSync('/dev/zero')) this.skip();
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero.json'));
    const before = process.memoryUsage().rss;
    const read = await readBounded(path.join(dir, 'zero.json'), 1024 * 1024);
    assert.equal(read.ok, false);
    assert.match(
      read.ok ? '' : read.reason,
      /^it is a device, not a regular file \(it links to \/dev\/zero\)$/,
    );
    assert.ok(process.memoryUsage().rss - before < 50 * 1024 * 1024);
  });

  it('refuses a FIFO without waiting for a writer', async function () {
    if (!posix) this.skip();
    const fifo = path.join(dir, 'AGENTS.fifo');
    execFileSync('mkfifo', [fifo]);
    const read = await readBounded(fifo, 1024);
    assert.equal(read.ok, false);
    assert.match(read.ok ? '' : read.reason, /named pipe \(FIFO\), not a regular file/);
  });

  it('refuses a 1 GB sparse file by its size, and a folder and a socket by their kind', async function () {
    const huge = path.join(dir, 'AGENTS.md');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, 1024 ** 3);
    const read = await readBounded(huge, 256 * 1024);
    assert.deepEqual(read, { ok: false, missing: false, reason: 'it is 1 GB, over the 256 KB limit' });
    const folder = await readBounded(dir, 1024);
    assert.match(folder.ok ? '' : folder.reason, /^it is a folder/);
    if (!posix) return;
    const socketPath = path.join(dir, 's.sock');
    const server = net.createServer().listen(socketPath);
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const socket = await readBounded(socketPath, 1024);
      assert.match(socket.ok ? '' : socket.reason, /^it is a socket( or a device)?, not a regular file/);
    } finally {
      server.close();
    }
  });

  it('never reads more than cap + 1 bytes of a file whose size says less than it holds', async function () {
    // /proc files say 0 bytes and hold more.
    if (!fs.existsSync('/proc/self/maps')) this.skip();
    const read = await readBounded('/proc/self/maps', 16);
    assert.equal(read.ok, false);
    assert.match(read.ok ? '' : read.reason, /larger than its size says \(more than 16 bytes\)/);
    // Within the cap, all it holds is read, though its size said 0.
    const whole = await readBounded('/proc/self/maps', 16 * 1024 * 1024);
    assert.ok(whole.ok && whole.bytes.length > 16, whole.ok ? `${whole.bytes.length} bytes` : whole.reason);
    assert.match(whole.ok ? textOf(whole.bytes) : '', /\n$/);
  });

  it('property: any file is read exactly when it is within the cap, and is then the bytes written', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 0, max: 300 }),
        async (bytes, cap) => {
          const file = path.join(dir, `p${n++}`);
          fs.writeFileSync(file, bytes);
          const read = await readBounded(file, cap);
          if (bytes.length <= cap) {
            assert.ok(read.ok, read.ok ? '' : read.reason);
            assert.deepEqual(Buffer.from(read.bytes), Buffer.from(bytes));
          } else {
            assert.equal(read.ok, false);
            assert.equal(
              read.ok ? '' : read.reason,
              `it is ${sizeText(bytes.length)}, over the ${sizeText(cap)} limit`,
            );
          }
          fs.rmSync(file);
        },
      ),
      { numRuns: 100 },
    );
  });
});
