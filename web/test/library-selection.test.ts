import { describe, expect, it } from 'vitest';
import { ref } from 'vue';
import { useLibrarySelection } from '../src/composables/useLibrarySelection';
import { emptyQuery } from '../src/search/filters';

const PAGE1 = [1, 2, 3, 4];
const PAGE2 = [5, 6, 7, 8];

function make(found = 8) {
  const query = ref({ ...emptyQuery(), q: ' koala ', tags: ['summer'] });
  return useLibrarySelection(query, ref(found));
}

describe('library selection (issue #27)', () => {
  it('keeps ids picked on several pages and sends them as asset_ids', () => {
    const s = make();
    s.click(PAGE1, 2, false);
    s.click(PAGE2, 5, false);
    s.click(PAGE2, 7, true);
    expect(s.count.value).toBe(4);
    expect(s.target()).toEqual({ asset_ids: [2, 5, 6, 7] });
  });

  it('selects and deselects a whole page', () => {
    const s = make();
    s.click(PAGE1, 1, false);
    s.togglePage(PAGE1);
    expect(PAGE1.every(s.has)).toBe(true);
    s.togglePage(PAGE1);
    expect(s.count.value).toBe(0);
  });

  it('"all matching" counts the search, deselects by exceptions (a range too) and sends the search', () => {
    const s = make(250);
    s.click(PAGE1, 1, false);
    s.selectAllMatching();
    expect(s.count.value).toBe(250);
    expect(s.has(999)).toBe(true);
    s.click(PAGE2, 5, false);
    s.click(PAGE2, 7, true);
    expect(s.count.value).toBe(247);
    expect([5, 6, 7].some(s.has)).toBe(false);
    expect(s.target()).toEqual({
      search: { q: 'koala', query_by: 'search_name', filter_by: '(tags:=[`summer`])' },
      except_ids: [5, 6, 7],
    });
    s.clear();
    expect(s.allMatching.value).toBe(false);
    expect(s.count.value).toBe(0);
  });

  it('ends "all matching" when every asset is deselected', () => {
    const s = make(4);
    s.selectAllMatching();
    s.togglePage(PAGE1);
    expect(s.allMatching.value).toBe(false);
    expect(s.count.value).toBe(0);
  });
});
