import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldName, MAX_SORT_KEY_LENGTH, sortKey } from '../src/domain/sort-key.js';

/**
 * The natural sort key (issue #11): the databases compare keys by their UTF-8
 * bytes, which is code point order; that order must be the natural order of
 * the names. Checked against a comparator written independently: it walks
 * both folded names, compares runs of digits by value and everything else by
 * code point.
 */

/** UTF-8 byte order: what SQLite's BINARY and PostgreSQL's COLLATE "C" compare. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

function naturalCompare(a: string, b: string): number {
  const tokens = (s: string) => foldName(s).match(/[0-9]+|[^0-9]/gu) ?? [];
  const [x, y] = [tokens(a), tokens(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const [p, q] = [x[i]!, y[i]!];
    if (/^[0-9]/.test(p) && /^[0-9]/.test(q)) {
      const [m, n] = [BigInt(p), BigInt(q)];
      if (m !== n) return m < n ? -1 : 1;
    } else if (p !== q) {
      // A digit run against another character: any digit compares to it alike.
      return p.codePointAt(0)! - q.codePointAt(0)!;
    }
  }
  return x.length - y.length;
}

const sign = (n: number) => Math.sign(n);

/** Names with what makes ordering hard: digits (leading zeros, long runs), case, accents, punctuation, other scripts. */
const nameChar = fc.constantFrom(...'0123456789000aAbBzZ .-_()éÉeEßsSıIiİ°²５Ａ中文😀'.split(/(?:)/u));
const name = fc.oneof(fc.string({ unit: nameChar, maxLength: 40 }), fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));

describe('sortKey', () => {
  it('orders by bytes exactly as the natural comparator orders the names', () => {
    fc.assert(
      fc.property(name, name, (a, b) => {
        expect(sign(byBytes(sortKey(a), sortKey(b)))).toBe(sign(naturalCompare(a, b)));
      }),
      { numRuns: 5000 },
    );
  });

  it('is case-insensitive', () => {
    fc.assert(
      fc.property(fc.string({ unit: nameChar, maxLength: 40 }), (s) => {
        expect(sortKey(s.toUpperCase())).toBe(sortKey(s.toLowerCase()));
      }),
    );
  });

  it('puts numbers in names in numeric order, whatever the case, accents and padding', () => {
    const names = ['IMG11', 'img10', 'img2', 'a 10.png', 'a 2.png', 'File 007', 'file 7b', 'file 70', 'Z', 'a', '10', '9', 'é'];
    const sorted = [...names].sort((a, b) => byBytes(sortKey(a), sortKey(b)));
    expect(sorted).toEqual(['9', '10', 'a', 'a 2.png', 'a 10.png', 'é', 'File 007', 'file 7b', 'file 70', 'img2', 'img10', 'IMG11', 'Z']);
    expect(sortKey('img007')).toBe(sortKey('IMG7'));
    expect(sortKey('Ärger')).toBe(sortKey('arger'));
    expect(sortKey('Straße')).toBe(sortKey('STRASSE'));
    expect(sortKey('ＩＭＧ１０')).toBe(sortKey('img10'));
  });

  it('keeps numbers beyond any integer type in order', () => {
    expect(byBytes(sortKey(`v${'9'.repeat(30)}`), sortKey(`v1${'0'.repeat(30)}`))).toBeLessThan(0);
    expect(byBytes(sortKey('v0'), sortKey('v00001'))).toBeLessThan(0);
  });

  it(`is cut at ${MAX_SORT_KEY_LENGTH} code points, never inside a surrogate pair, and is always well-formed`, () => {
    const long = sortKey('😀'.repeat(1000));
    expect(Array.from(long)).toHaveLength(MAX_SORT_KEY_LENGTH);
    expect(long).toBe('😀'.repeat(MAX_SORT_KEY_LENGTH));
    expect(sortKey('a\uD800b')).toBe('a\uFFFDb');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (s) => {
        const key = sortKey(s);
        expect(Array.from(key).length).toBeLessThanOrEqual(MAX_SORT_KEY_LENGTH);
        expect(/[\uD800-\uDFFF]/u.test(key)).toBe(false);
      }),
    );
  });
});
