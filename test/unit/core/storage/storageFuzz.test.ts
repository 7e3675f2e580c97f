/**
 * Property-based tests of the storage boundary: whatever the files hold (any JSON value, any
 * text, a truncated write), reading never throws, nothing valid is lost, and what could not be
 * read is kept aside byte for byte.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { newConversation, userTurn } from '../../../../src/core/chat/conversation';
import type { Conversation } from '../../../../src/core/chat/conversation';
import { mergeIndex, parseConversation, parseIndex } from '../../../../src/core/chat/conversationCodec';
import { ConversationStore, conversationFile, INDEX_FILE } from '../../../../src/core/chat/conversationStore';
import { createMediaJob } from '../../../../src/core/media/mediaJob';
import { resultFileName, thumbnailFileName } from '../../../../src/core/media/mediaFiles';
import {
  MEDIA_JOBS_FILE,
  lacksAny,
  MediaJobFile,
  mergeJobs,
  parseJobsFile,
  serializeJobsFile,
} from '../../../../src/core/media/mediaJobFile';
import { isPortableFileName } from '../media/portableNames';
import { memoryFolder } from './tempFolder';

let cases = 0;
const RUNS = 300;
function run<T>(arbitrary: fc.Arbitrary<T>, property: (value: T) => Promise<void> | void, numRuns = RUNS) {
  cases += numRuns;
  return fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      await property(value);
    }),
    { numRuns },
  );
}

/** Any JSON value, any text, or a cut-off prefix of a valid file. */
function hostile(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary' }),
    fc.nat({ max: Math.max(0, valid.length - 1) }).map((n) => valid.slice(0, n)),
    fc.anything().map((v) => {
      try {
        return JSON.stringify(v) ?? 'undefined';
      } catch {
        return 'null';
      }
    }),
  );
}

function chat(title: string, at: number): Conversation {
  const c = newConversation(at);
  c.title = title;
  c.turns.push(userTurn(title, at));
  return c;
}

/** A folder with three saved chats and their index. */
async function savedChats(): Promise<{ folder: ReturnType<typeof memoryFolder>; chats: Conversation[] }> {
  const folder = memoryFolder();
  const store = new ConversationStore(folder);
  const chats = [chat('alpha', 1000), chat('beta', 2000), chat('gamma', 3000)];
  for (const c of chats) await store.save(c);
  await store.flush();
  store.dispose();
  return { folder, chats };
}

function keptCopies(folder: ReturnType<typeof memoryFolder>, prefix: string): string[] {
  return [...folder.files.entries()]
    .filter(([name]) => name.startsWith(prefix) && name.includes('.corrupt-'))
    .map(([, text]) => text);
}

describe('storage boundary (fast-check)', function () {
  // Hundreds of whole stores per property, on a machine that may be busy.
  this.timeout(120_000);
  after(() => console.log(`      storage fuzz: ${cases} cases`));

  it('parsers take any value without throwing', () =>
    run(
      fc.anything({ withNullPrototype: true, withMap: true, withSet: true }),
      (value) => {
        parseConversation(value);
        parseIndex(value);
        parseJobsFile(value);
      },
      2000,
    ));

  it('any index file: the list never throws and keeps every saved chat; a bad index is kept aside', async () => {
    const { folder: template } = await savedChats();
    const valid = template.files.get(INDEX_FILE)!;
    await run(hostile(valid), async (text) => {
      const folder = memoryFolder(Object.fromEntries(template.files));
      folder.files.set(INDEX_FILE, text);
      const store = new ConversationStore(folder);
      const titles = (await store.list()).map((s) => s.title);
      for (const t of ['alpha', 'beta', 'gamma']) assert.ok(titles.includes(t), `${t} listed for ${text}`);
      await store.flush();
      store.dispose();
      const parsed = (() => {
        try {
          return parseIndex(JSON.parse(text));
        } catch {
          return undefined;
        }
      })();
      if (!parsed) assert.deepEqual(keptCopies(folder, 'index.'), [text], 'the bad index is kept as it was');
      // What is on disk afterwards is a good index listing all three.
      const after = parseIndex(JSON.parse(folder.files.get(INDEX_FILE) ?? '{}'));
      if (after) assert.ok(after.value.items.length >= 3 || !parsed);
    });
  });

  it('any conversation file: loading never throws, the others stay intact, a bad file is kept aside', async () => {
    const { folder: template, chats } = await savedChats();
    const victim = chats[1];
    const name = conversationFile(victim.id);
    await run(hostile(template.files.get(name)!), async (text) => {
      const folder = memoryFolder(Object.fromEntries(template.files));
      folder.files.set(name, text);
      const store = new ConversationStore(folder);
      const loaded = await store.load(victim.id);
      if (!loaded) {
        const readable = (() => {
          try {
            return parseConversation(JSON.parse(text));
          } catch {
            return undefined;
          }
        })();
        if (!readable) assert.deepEqual(keptCopies(folder, name.replace('.json', '')), [text]);
      }
      for (const c of [chats[0], chats[2]]) assert.deepEqual(await store.load(c.id), c);
      const titles = (await store.list()).map((s) => s.title);
      assert.ok(titles.includes('alpha') && titles.includes('gamma'));
      await store.flush();
      store.dispose();
    });
  });

  it('any media jobs file: reading never throws, a save keeps our jobs, a bad file is kept aside', async () => {
    const ours = [createMediaJob({ id: 'ours-1', prompt: 'p', model: 'a/b' }, 5000)];
    // Every field a job may have, the polling URL, progress and queue place included, to mutate.
    const theirs = createMediaJob(
      { id: 'theirs', prompt: 'q', model: 'a/b', pollingUrl: 'https://gw.example/api/v1/videos/theirs' },
      1000,
    );
    const valid = serializeJobsFile({
      jobs: [
        { ...theirs, status: 'processing', progress: 0.5, queuePosition: 2, cost: 0.5 },
        { ...createMediaJob({ id: 'ended', prompt: 'r', model: 'a/b' }, 900), status: 'expired' },
      ],
      removed: {},
    });
    await run(hostile(valid), async (text) => {
      const folder = memoryFolder({ [MEDIA_JOBS_FILE]: text });
      const file = new MediaJobFile(folder);
      await file.read();
      await file.save(ours);
      await file.flush();
      const after = await new MediaJobFile(folder).read();
      assert.ok(
        after.jobs.some((j) => j.id === 'ours-1'),
        'our job was saved',
      );
      const parsed = (() => {
        try {
          return parseJobsFile(JSON.parse(text));
        } catch {
          return undefined;
        }
      })();
      if (!parsed) assert.deepEqual(keptCopies(folder, 'jobs.'), [text]);
      else
        for (const job of parsed.jobs)
          assert.ok(
            after.jobs.some((j) => j.id === job.id),
            'their jobs stay',
          );
      file.dispose();
    });
  });

  it('stored attachments go through one parser: any value in, well-formed attachments out, valid ones kept', () => {
    const validAttachment = fc.record(
      {
        id: fc.string({ minLength: 1 }),
        kind: fc.constantFrom('selection', 'file', 'problems', 'image'),
        name: fc.string(),
        path: fc.string(),
        text: fc.string(),
        mimeType: fc.constantFrom('image/png', 'image/jpeg', 'image/webp', 'image/gif'),
        file: fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,40}$/),
        bytes: fc.nat(),
        tokens: fc.nat(),
      },
      { requiredKeys: ['id', 'kind', 'name', 'bytes', 'tokens'] },
    );
    const entry = fc.oneof(validAttachment, fc.jsonValue(), fc.anything());
    return run(
      fc.tuple(fc.array(entry, { maxLength: 6 }), fc.boolean()),
      ([attachments, leftOut]) => {
        const stored = {
          id: 'c-1',
          title: 't',
          createdAt: 1,
          updatedAt: 2,
          turns: [{ id: 'u-1', role: 'user', content: 'hi', createdAt: 1, attachments, leftOut }],
        };
        let value: unknown;
        try {
          value = JSON.parse(JSON.stringify(stored)) as unknown;
        } catch {
          return; // Not storable as JSON (a BigInt): a file can never hold it.
        }
        const parsed = parseConversation(value);
        assert.ok(parsed, 'the conversation is read');
        const turn = parsed.value.turns[0];
        assert.ok(turn && turn.role === 'user', 'the turn is kept whatever its attachments');
        for (const a of turn.attachments ?? []) {
          assert.ok(['selection', 'file', 'problems', 'image'].includes(a.kind));
          assert.ok(typeof a.name === 'string' && Number.isFinite(a.bytes) && a.bytes >= 0);
          if (a.file) assert.match(a.file, /^[A-Za-z0-9_.-]+$/, 'a stored image is a bare file name');
        }
        const raw = (value as { turns: Array<{ attachments: unknown[] }> }).turns[0].attachments;
        const valid = raw.filter((a) => {
          try {
            return (
              typeof a === 'object' &&
              a !== null &&
              typeof (a as { id?: unknown }).id === 'string' &&
              (a as { id: string }).id !== '' &&
              ['selection', 'file', 'problems', 'image'].includes((a as { kind?: string }).kind ?? '') &&
              typeof (a as { name?: unknown }).name === 'string' &&
              Number.isFinite((a as { bytes?: unknown }).bytes) &&
              (a as { bytes: number }).bytes >= 0 &&
              Number.isFinite((a as { tokens?: unknown }).tokens) &&
              (a as { tokens: number }).tokens >= 0
            );
          } catch {
            return false;
          }
        });
        assert.equal(turn.attachments?.length ?? 0, valid.length, 'no valid attachment is lost');
        assert.equal(parsed.dropped.length > 0, valid.length < raw.length, 'what was dropped is named');
        assert.equal(turn.leftOut === true, leftOut);
      },
      1000,
    );
  });

  it('valid conversations survive the round trip exactly', () => {
    const attachment = fc.record(
      {
        id: fc.string({ minLength: 1 }),
        kind: fc.constantFrom('selection' as const, 'file' as const, 'problems' as const, 'image' as const),
        name: fc.string(),
        path: fc.string(),
        language: fc.string(),
        text: fc.string(),
        mimeType: fc.constantFrom('image/png', 'image/jpeg'),
        file: fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,40}$/),
        bytes: fc.nat(),
        tokens: fc.nat(),
      },
      { requiredKeys: ['id', 'kind', 'name', 'bytes', 'tokens'] },
    );
    const turn = fc.record(
      {
        id: fc.uuid(),
        role: fc.constant('user' as const),
        content: fc.string({ unit: 'grapheme' }),
        createdAt: fc.nat(),
        attachments: fc.array(attachment, { minLength: 1, maxLength: 3 }),
        leftOut: fc.constant(true as const),
      },
      { requiredKeys: ['id', 'role', 'content', 'createdAt'] },
    );
    return run(
      fc.record({
        id: fc.stringMatching(/^[\w.:@+-]{1,200}$/),
        title: fc.string(),
        createdAt: fc.nat(),
        updatedAt: fc.nat(),
        turns: fc.uniqueArray(turn, { selector: (t) => t.id, maxLength: 5 }),
      }),
      (conversation) => {
        const text = JSON.stringify(conversation);
        assert.equal(JSON.stringify(parseConversation(JSON.parse(text))?.value), text);
      },
      1000,
    );
  });

  it('merges are commutative in content and never bring back what was deleted', () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd');
    const item = fc.record({
      id,
      title: fc.constantFrom('x', 'y'),
      updatedAt: fc.nat(100),
      turnCount: fc.nat(3),
    });
    const index = fc.record({
      items: fc.uniqueArray(item, { selector: (i) => i.id }),
      deleted: fc.dictionary(id, fc.nat(100)),
    });
    return run(
      fc.tuple(index, index),
      ([a, b]) => {
        const ab = mergeIndex(a, b);
        const ba = mergeIndex(b, a);
        const ids = (i: typeof ab) => i.items.map((x) => `${x.id}@${x.updatedAt}`).sort();
        assert.deepEqual(ids(ab), ids(ba));
        for (const x of ab.items) assert.ok(!(x.id in ab.deleted) || ab.deleted[x.id] < x.updatedAt);
        // Every summary newer than any deletion of it is kept.
        for (const x of [...a.items, ...b.items]) {
          const deletedAt = Math.max(a.deleted[x.id] ?? -1, b.deleted[x.id] ?? -1);
          if (x.updatedAt > deletedAt)
            assert.ok(ab.items.some((y) => y.id === x.id && y.updatedAt >= x.updatedAt));
        }
        // Media jobs: a removed job never comes back, every other one is kept. A job started
        // after the removal under the same id (the gateway gave the id again) is another job.
        const jobs = (xs: typeof a.items) =>
          xs.map((x) => createMediaJob({ id: x.id, prompt: '', model: 'm/n' }, x.updatedAt));
        const merged = mergeJobs(
          { jobs: jobs(a.items), removed: a.deleted },
          { jobs: jobs(b.items), removed: b.deleted },
        );
        for (const job of merged.jobs) assert.ok(!(job.createdAt <= merged.removed[job.id]));
        for (const x of [...a.items, ...b.items]) {
          const removedAt = Math.max(a.deleted[x.id] ?? -1, b.deleted[x.id] ?? -1);
          if (x.updatedAt > removedAt)
            assert.ok(merged.jobs.some((j) => j.id === x.id && j.createdAt >= x.updatedAt));
        }
      },
      2000,
    );
  });

  it('F2: any string id round-trips through the jobs file, under a one-to-one name safe on Windows and POSIX', () => {
    const seenNames = new Map<string, string>();
    return run(
      fc.uniqueArray(
        fc.oneof(
          fc.string({ minLength: 1, unit: 'binary' }),
          fc.string({ minLength: 150, maxLength: 600 }),
          fc.constantFrom(
            'models/veo-3/operations/abc',
            '..',
            'nul',
            'CON.png',
            '__proto__',
            '\uD800',
            '\uFFFD',
          ),
        ),
        { minLength: 1, maxLength: 8 },
      ),
      async (ids) => {
        const folder = memoryFolder();
        const window = new MediaJobFile(folder);
        const ours = ids.map((id, i) => createMediaJob({ id, prompt: id, model: 'a/b' }, 1000 + i));
        await window.save(ours, () => undefined);
        const read = await new MediaJobFile(folder).read();
        assert.deepEqual(read.jobs, ours, 'every job read back as written');
        assert.equal(lacksAny(read, ours), false, 'nothing to write again');
        for (const id of ids) {
          for (const name of [resultFileName(id, 0, 'image/png'), thumbnailFileName(id)]) {
            assert.ok(isPortableFileName(name), name);
            const owner = seenNames.get(name);
            assert.ok(
              owner === undefined || owner === id,
              `${JSON.stringify(id)} and ${JSON.stringify(owner)} share ${name}`,
            );
            seenNames.set(name, id);
          }
        }
        window.dispose();
      },
      500,
    );
  });
});
