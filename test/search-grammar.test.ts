import { describe, expect, it } from 'vitest';
import { FilterError } from '../src/search/filter/ast.js';
import { parseFilter } from '../src/search/filter/parser.js';

/** The filter parser alone (seed 4.1): the tree it builds and where it points when it refuses. */
describe('filter grammar', () => {
  const position = (text: string): number => {
    try {
      parseFilter(text);
    } catch (err) {
      if (err instanceof FilterError) return err.position;
      throw err;
    }
    throw new Error(`"${text}" parsed`);
  };

  it('parses a condition with values, lists, ranges and backticks', () => {
    expect(parseFilter('tags:=[red, `dark blue`, 3..5]')).toEqual({
      type: 'condition',
      field: 'tags',
      position: 0,
      operator: ':=',
      operatorPosition: 4,
      isList: true,
      items: [
        { kind: 'value', value: { text: 'red', position: 7 } },
        { kind: 'value', value: { text: 'dark blue', position: 12 } },
        { kind: 'range', from: { text: '3', position: 25 }, to: { text: '5', position: 28 } },
      ],
    });
  });

  it('keeps one operator per level: chains are flat, parentheses nest', () => {
    const tree = parseFilter('a:=1 && (b:=2 || c:=3) && d:>4');
    expect(tree).toMatchObject({ type: 'and', children: [{ field: 'a' }, { type: 'or', children: [{ field: 'b' }, { field: 'c' }] }, { field: 'd', operator: ':>' }] });
    expect(position('a:=1 && b:=2 || c:=3')).toBe(13);
    expect(position('a:=1 || b:=2 && c:=3')).toBe(13);
    expect(parseFilter('(a:=1 && b:=2) || c:=3')).toMatchObject({ type: 'or' });
  });

  it('reads values that contain colons, dots, dashes and other punctuation', () => {
    expect(parseFilter('file_type:=a:b.c-d')).toMatchObject({ items: [{ value: { text: 'a:b.c-d' } }] });
    expect(parseFilter('x:=`a && b || (c)`')).toMatchObject({ items: [{ value: { text: 'a && b || (c)' } }] });
  });

  it('treats a blank expression as no filter', () => {
    expect(parseFilter('')).toBeNull();
    expect(parseFilter('   ')).toBeNull();
  });

  it('refuses control characters', () => {
    expect(position('tags:=a\u0000b')).toBe(7);
  });
});
