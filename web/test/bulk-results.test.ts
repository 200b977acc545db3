import { describe, expect, it } from 'vitest';
import type { ItemResult } from '../src/api/types';
import { summarizeResults } from '../src/library/results';

const NAMES: Record<number, string> = { 1: 'a.png', 2: 'b.png', 3: 'c.png', 4: 'd.png', 5: 'e.png', 6: 'f.png' };
const nameOf = (r: ItemResult) => NAMES[r.id];
const ok = (id: number): ItemResult => ({ id, ok: true });
const gone = (id: number): ItemResult => ({ id, ok: false, code: 'NOT_FOUND', error: `Asset ${id} not found` });

describe('bulk results in words', () => {
  it('says nothing went wrong when every item succeeded', () => {
    expect(summarizeResults([ok(1), ok(2)], { verb: 'moved', nameOf })).toEqual({ ok: 2, failed: [], failure: null });
  });

  it('names the items that failed, counted against the whole, with why', () => {
    const summary = summarizeResults([ok(1), gone(2), ok(3), gone(4), ok(5)], { verb: 'moved', nameOf });
    expect(summary.ok).toBe(3);
    expect(summary.failed.map((r) => r.id)).toEqual([2, 4]);
    expect(summary.failure).toBe('2 of 5 could not be moved: “b.png”, “d.png” (not found: deleted or moved to the trash meanwhile).');
  });

  it('groups failures by reason, drops the field prefix of a server message, and names an unknown item by id', () => {
    const tooMany: ItemResult = { id: 9, ok: false, code: 'VALIDATION_ERROR', error: 'tags: asset 9 would have more than 100 tags' };
    const summary = summarizeResults([gone(1), tooMany, ok(3)], { verb: 'tagged', nameOf });
    expect(summary.failure).toBe(
      '2 of 3 could not be tagged: “a.png” (not found: deleted or moved to the trash meanwhile); #9 (asset 9 would have more than 100 tags).',
    );
  });

  it('counts against `total` when the results list only the failures (a bulk action over a search)', () => {
    const summary = summarizeResults([gone(2)], { verb: 'tagged', nameOf, total: 250 });
    expect(summary.ok).toBe(249);
    expect(summary.failure).toBe('1 of 250 could not be tagged: “b.png” (not found: deleted or moved to the trash meanwhile).');
    expect(summarizeResults([], { verb: 'tagged', nameOf, total: 250 })).toEqual({ ok: 250, failed: [], failure: null });
  });

  it('lists three names, then how many more', () => {
    const summary = summarizeResults([1, 2, 3, 4, 5].map(gone), { verb: 'restored', nameOf, notFound: 'no longer in the trash' });
    expect(summary.ok).toBe(0);
    expect(summary.failure).toBe('None of the 5 could be restored: “a.png”, “b.png”, “c.png” and 2 more (no longer in the trash).');
  });

  it('speaks of a single item by name', () => {
    expect(summarizeResults([gone(6)], { verb: 'moved to the trash', nameOf }).failure).toBe(
      '“f.png” could not be moved to the trash (not found: deleted or moved to the trash meanwhile).',
    );
  });
});
