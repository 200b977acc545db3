import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { faultOf } from '../src/faults/classify.js';
import { writeNowOrLater } from '../src/faults/retry-later.js';
import { diskFullFailure } from '../src/media/tools.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { registerUser } from './helpers/factories.js';

/**
 * Issue #37, a full disk, in-process: what is cheaper to prove here than on the real full tmpfs of
 * test/faults/disk-full.test.ts. SQLite's SQLITE_FULL (a database not allowed to grow, by `max_page_count`) inside a
 * transaction is answered 507 INSUFFICIENT_STORAGE, not the 500 of the ROLLBACK that failed after it; and a program that
 * could not write its output is told from a file it could not read.
 */

describe('SQLite refusing writes (SQLITE_FULL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const createFolder = (token: string, workspaceId: number, name: string) =>
    t.request({ method: 'POST', url: '/dam/folders', token, payload: { workspace_id: workspaceId, name } });

  it('fails a transaction with SQLITE_FULL, which SQLite rolled back itself (not with the ROLLBACK that came after it)', async () => {
    const { db } = t.database;
    await sql`CREATE TABLE fill_probe (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`.execute(db);
    const pages = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(db)).rows[0]!.page_count;
    await sql.raw(`PRAGMA max_page_count = ${pages + 4}`).execute(db);
    let failure: unknown;
    for (let i = 0; i < 100 && failure === undefined; i += 1) {
      await db
        .transaction()
        .execute(async (trx) => {
          await sql`INSERT INTO fill_probe (body) VALUES (${'x'.repeat(3000)})`.execute(trx);
          await sql`INSERT INTO fill_probe (body) VALUES (${'y'.repeat(3000)})`.execute(trx);
        })
        .catch((err: unknown) => (failure = err));
    }
    expect(failure).toMatchObject({ code: 'SQLITE_FULL' });
    expect(faultOf(failure)).toBe('disk_full');
    await sql.raw('PRAGMA max_page_count = 1073741823').execute(db);
    await sql`DROP TABLE fill_probe`.execute(db);
  });

  it('answers 507 INSUFFICIENT_STORAGE with Retry-After, answers reads, and takes writes again once there is room', async () => {
    const user = await registerUser(t);
    const pages = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(t.database.db)).rows[0]!.page_count;
    await sql.raw(`PRAGMA max_page_count = ${pages}`).execute(t.database.db);
    // Folders (each in a transaction with its activity entry) until one needs a page the database may not take.
    let refused: Awaited<ReturnType<typeof createFolder>> | undefined;
    for (let i = 0; i < 500 && !refused; i += 1) {
      const res = await createFolder(user.token, user.workspaceId, `folder ${i} ${'x'.repeat(150)}`);
      if (res.statusCode !== 201) refused = res;
    }
    expect(refused?.statusCode, refused?.body).toBe(507);
    expect(refused!.json()).toEqual({ code: 'INSUFFICIENT_STORAGE', error: expect.any(String) as unknown });
    expect(refused!.headers['retry-after']).toBe('60');

    const list = await t.request({ method: 'GET', url: `/dam/folders?workspaceId=${user.workspaceId}`, token: user.token });
    expect(list.statusCode, list.body).toBe(200);

    await sql.raw('PRAGMA max_page_count = 1073741823').execute(t.database.db);
    const again = await createFolder(user.token, user.workspaceId, 'after the disk was freed');
    expect(again.statusCode, again.body).toBe(201);
  });
});

describe('a program that could not write its output', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dam-disk-full-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is a full disk when it says so (ffmpeg, libvips), an ENOSPC the job worker waits on', async () => {
    for (const said of [
      'av_interleaved_write_frame(): No space left on device',
      '/work/out.webp: write error\nsystem error: No space left on device',
      'Disk quota exceeded',
    ]) {
      const err = await diskFullFailure(dir, said);
      expect(err?.code).toBe('ENOSPC');
      expect(faultOf(err)).toBe('disk_full');
      // Its words stay in the log: they may name server paths (issue #27).
      expect(err?.message).not.toContain('/work');
    }
  });

  it('is the file when the disk has room and the program does not blame it', async () => {
    expect(await diskFullFailure(dir, 'Invalid data found when processing input')).toBeUndefined();
  });
});

describe('a clean-up write the full disk refuses too', () => {
  const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

  it('is tried again in the background until it succeeds, and the caller goes on', async () => {
    vi.useFakeTimers();
    try {
      let refuse = true;
      let done = 0;
      const write = async () => {
        if (refuse) throw full();
        done += 1;
      };
      await writeNowOrLater('a test write', write);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done).toBe(0);
      refuse = false;
      await vi.advanceTimersByTimeAsync(2_000);
      expect(done).toBe(1);
      // Done at once when it can be.
      await writeNowOrLater('a test write', write);
      expect(done).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('throws what is not a fault', async () => {
    await expect(writeNowOrLater('a test write', () => Promise.reject(new Error('a bug')))).rejects.toThrow('a bug');
  });
});
