import { createHash } from 'node:crypto';
import type { DB } from '../db/database.js';
import { accountedKeys, assetOnlyReferences, currentReference, versionReferences, type ObjectReference } from '../repositories/store-references.js';
import { ASSET_LAYOUT } from '../storage/keys.js';
import { StoreError, type ObjectStore } from '../storage/object-store.js';

/**
 * The check behind `npm run admin -- verify` (issue #37): does the store hold every object the database references,
 * whole (its size, and its SHA-256 where one is recorded), and does every object of the asset layout belong to a row?
 * Read-only on both sides. Memory stays bounded: rows are read in pages, the store is listed page by page, objects are
 * hashed as they stream, and only up to CANDIDATE_LIMIT findings per kind are kept for their second look.
 */

export interface VerifyOptions {
  /** Hash every object whose row records a SHA-256 (reads every byte); false: sizes only. */
  hash: boolean;
  /** Findings of each kind named in the report. */
  examples: number;
  /** Objects checked at once. */
  concurrency?: number;
}

export interface Finding {
  count: number;
  examples: string[];
}

export interface VerifyReport {
  /** Objects the database references, checked in the store. */
  checked: number;
  /** Of those, read and hashed against the recorded SHA-256. */
  hashed: number;
  /** Objects the store listed under the asset layout. */
  listed: number;
  /** Objects the store listed outside the asset layout (not ours to judge: ignored). */
  outsideLayout: number;
  missing: Finding;
  sizeMismatches: Finding;
  hashMismatches: Finding;
  orphans: Finding;
}

const PAGE = 500;
/** Findings kept per kind for the second look; more are counted as found (a store that far off needs no recheck). */
const CANDIDATE_LIMIT = 10_000;

type Problem = { kind: 'missing' } | { kind: 'size'; actual: number } | { kind: 'hash'; actual: string };

/** What the store holds at `ref.key` against what the row says; undefined when they agree. */
async function inspect(store: ObjectStore, ref: ObjectReference, hash: boolean): Promise<{ problem: Problem | undefined; hashed: boolean }> {
  if (!(hash && ref.sha256)) {
    const info = await store.head(ref.key);
    if (!info) return { problem: { kind: 'missing' }, hashed: false };
    return { problem: info.size === ref.size ? undefined : { kind: 'size', actual: info.size }, hashed: false };
  }
  let body;
  try {
    body = await store.read(ref.key);
  } catch (err) {
    if (err instanceof StoreError && err.httpStatus === 404) return { problem: { kind: 'missing' }, hashed: false };
    throw err;
  }
  // The bytes counted as they stream, not the size the store states: a short piece shows here.
  const digest = createHash('sha256');
  let size = 0;
  for await (const chunk of body.stream) {
    digest.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  if (size !== ref.size) return { problem: { kind: 'size', actual: size }, hashed: true };
  const actual = digest.digest('hex');
  return { problem: actual === ref.sha256 ? undefined : { kind: 'hash', actual }, hashed: true };
}

/** Runs `work` on each item, `limit` at a time; the first failure stops the rest and is thrown. */
async function eachLimited<T>(items: AsyncIterable<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  for await (const item of items) {
    if (failure) break;
    const task: Promise<void> = work(item).then(
      () => void running.delete(task),
      (err: unknown) => {
        running.delete(task);
        failure ??= { err };
      },
    );
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.err instanceof Error ? failure.err : new Error(String(failure.err));
}

async function* references(db: DB): AsyncGenerator<ObjectReference> {
  for (const pages of [versionReferences, assetOnlyReferences]) {
    let after = 0;
    for (let page = await pages(db, after, PAGE); page; page = await pages(db, after, PAGE)) {
      yield* page.refs;
      after = page.lastId;
    }
  }
}

class Findings {
  readonly found: Finding = { count: 0, examples: [] };
  /** Kept for the second look. */
  readonly candidates: { key: string; note: string }[] = [];

  constructor(private readonly examples: number) {}

  suspect(key: string, note: string): void {
    if (this.candidates.length < CANDIDATE_LIMIT) this.candidates.push({ key, note });
    else this.confirm(note);
  }

  confirm(note: string): void {
    this.found.count += 1;
    if (this.found.examples.length < this.examples) this.found.examples.push(note);
  }
}

const describe = (ref: ObjectReference, problem: Problem): string => {
  if (problem.kind === 'missing') return `${ref.key} (${ref.what})`;
  if (problem.kind === 'size') return `${ref.key} (${ref.what}): ${ref.size} bytes in the database, ${problem.actual} in the store`;
  return `${ref.key} (${ref.what}): SHA-256 ${ref.sha256} in the database, ${problem.actual} in the store`;
};

/**
 * Checks the store against the database. The service may be running meanwhile: an upload, a rendition or a deletion
 * between reading a row and looking at its object would look like a fault, so every finding is looked at once more at
 * the end, against the rows and objects of that moment, and counted only if it still holds.
 */
export async function verifyStore(db: DB, store: ObjectStore, options: VerifyOptions): Promise<VerifyReport> {
  const concurrency = options.concurrency ?? 4;
  const found = {
    missing: new Findings(options.examples),
    size: new Findings(options.examples),
    hash: new Findings(options.examples),
    orphans: new Findings(options.examples),
  };
  const report = { checked: 0, hashed: 0, listed: 0, outsideLayout: 0 };

  // The store's objects, each accounted for by a row (or a queued deletion) or an orphan.
  const checkBatch = async (batch: { key: string; assetId: number; size: number }[]) => {
    const known = await accountedKeys(db, [...new Set(batch.map((o) => o.assetId))], batch.map((o) => o.key));
    for (const o of batch) {
      if (known.has(o.key)) continue;
      found.orphans.suspect(o.key, `${o.key} (${o.size} bytes)`);
    }
  };
  let batch: { key: string; assetId: number; size: number }[] = [];
  for await (const object of store.listKeys('')) {
    const match = ASSET_LAYOUT.exec(object.key);
    if (!match) {
      report.outsideLayout += 1;
      continue;
    }
    report.listed += 1;
    batch.push({ key: object.key, assetId: Number(match[1]), size: object.size });
    if (batch.length >= PAGE) {
      await checkBatch(batch);
      batch = [];
    }
  }
  await checkBatch(batch);

  // The database's references, each in the store and whole.
  const kinds = { missing: found.missing, size: found.size, hash: found.hash } as const;
  await eachLimited(references(db), concurrency, async (ref) => {
    report.checked += 1;
    const { problem, hashed } = await inspect(store, ref, options.hash);
    if (hashed) report.hashed += 1;
    if (problem) kinds[problem.kind].suspect(ref.key, describe(ref, problem));
  });

  // The second look.
  for (const findings of Object.values(kinds)) {
    for (const { key } of findings.candidates) {
      const ref = await currentReference(db, key);
      if (!ref) continue;
      const { problem } = await inspect(store, ref, options.hash);
      if (problem) kinds[problem.kind].confirm(describe(ref, problem));
    }
  }
  for (const { key, note } of found.orphans.candidates) {
    const assetId = Number(ASSET_LAYOUT.exec(key)![1]);
    if ((await accountedKeys(db, [assetId], [key])).has(key)) continue;
    if (await store.head(key)) found.orphans.confirm(note);
  }

  return {
    ...report,
    missing: found.missing.found,
    sizeMismatches: found.size.found,
    hashMismatches: found.hash.found,
    orphans: found.orphans.found,
  };
}

/** Problems found: missing, mismatched and orphaned objects. */
export const problemsOf = (r: VerifyReport): number => r.missing.count + r.sizeMismatches.count + r.hashMismatches.count + r.orphans.count;
