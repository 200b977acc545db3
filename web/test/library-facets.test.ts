import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { effectScope, nextTick, ref } from 'vue';
import { searchApi } from '../src/api/search';
import type { FacetCounts, SearchRequest, SearchResponse } from '../src/api/types';
import SearchFilters from '../src/components/SearchFilters.vue';
import { useAssetSearch } from '../src/composables/useAssetSearch';
import { countOf, facetOptions, facetPlan, facetsOf, takenYears, visibilityCount, type Facets } from '../src/search/facets';
import { activeFilterCount, assetFilter, dayStart, emptyQuery, fromRoute, searchRequest, toRoute, withoutFilters, type LibraryQuery } from '../src/search/filters';
import { searchDoc } from './api-fixtures';

/** One facet_by field's counts as the server answers them. */
function facet(field_name: string, counts: [string, number][]): FacetCounts {
  return { field_name, counts: counts.map(([value, count]) => ({ value, count, highlighted: value })), sampled: false, stats: { total_values: counts.length } };
}

describe('the date taken, camera and creator filters (issue #12)', () => {
  it('turn a range of days into taken_at bounds in UTC, both days included', () => {
    const q = { ...emptyQuery(), takenFrom: '2023-06-01', takenTo: '2023-06-30' };
    const from = Date.UTC(2023, 5, 1) / 1000;
    const endOfTo = Date.UTC(2023, 6, 1) / 1000 - 1;
    expect(assetFilter(q)).toBe(`(taken_at:>=${from}) && (taken_at:<=${endOfTo})`);
    // One end alone is a half-open range.
    expect(assetFilter({ ...emptyQuery(), takenTo: '2020-02-29' })).toBe(`(taken_at:<=${Date.UTC(2020, 2, 1) / 1000 - 1})`);
  });

  it('quote camera and creator, which cannot break out of their condition', () => {
    const q = { ...emptyQuery(), camera: 'Canon EOS R5', creator: 'Ann `x` || (visibility:=0' };
    expect(assetFilter(q)).toBe('(camera_model:=`Canon EOS R5`) && (creator:=`Ann x || (visibility:=0`)');
  });

  it('read only real days', () => {
    expect(dayStart('2024-02-29')).toBe(Date.UTC(2024, 1, 29) / 1000);
    for (const bad of ['2023-02-29', '2023-13-01', '2023-6-1', '', 'yesterday']) expect(dayStart(bad)).toBeNull();
  });

  it('live in the query string like the other filters, ignoring malformed values', () => {
    const q: LibraryQuery = { ...emptyQuery(), takenFrom: '2021-01-01', takenTo: '2021-12-31', camera: 'X100V', creator: 'Ann Lee', sort: 'taken_at:desc' };
    const route = toRoute(q, 3);
    expect(route).toMatchObject({ taken_from: '2021-01-01', taken_to: '2021-12-31', camera: 'X100V', creator: 'Ann Lee', sort: 'taken_at:desc' });
    expect(fromRoute(route)).toEqual(q);
    expect(fromRoute({ taken_from: '2021-02-30', taken_to: 'soon', sort: 'taken_at:sideways' })).toEqual(emptyQuery());
    expect(activeFilterCount(q)).toBe(3);
    expect(activeFilterCount(withoutFilters({ ...q, q: 'fox', fileTypes: ['image'] }))).toBe(0);
    expect(withoutFilters({ ...q, q: 'fox' })).toMatchObject({ q: 'fox', sort: 'taken_at:desc' });
  });
});

describe('facet counts of the filters (issue #12)', () => {
  const FIELDS = 'file_type,tags,orientation,visibility,camera_model,creator,taken_year';

  it('come with the grid search while no filter is set', () => {
    const plan = facetPlan(emptyQuery(), 4);
    expect(plan.apart).toEqual([]);
    expect(searchRequest(emptyQuery(), 4, plan.main).commonSearchParams).toEqual({ query_by: 'search_name', per_page: 24, page: 1, facet_by: FIELDS, max_facet_values: 10 });
    // Without facets the request is as before.
    expect(searchRequest(emptyQuery(), 4).commonSearchParams).toEqual({ query_by: 'search_name', per_page: 24, page: 1 });
  });

  it('count a filtered field apart, in the result of every other filter', () => {
    const q: LibraryQuery = { ...emptyQuery(), q: 'fox', fileTypes: ['image'], tags: ['red'], takenFrom: '2023-01-01', camera: 'X100V', page: 3 };
    const plan = facetPlan(q, 4);
    expect(plan.main).toEqual(['tags', 'orientation', 'visibility', 'creator']);
    expect(plan.apart.map((a) => a.field)).toEqual(['file_type', 'camera_model', 'taken_year']);
    const byField = Object.fromEntries(plan.apart.map((a) => [a.field, a.request]));
    const since = Date.UTC(2023, 0, 1) / 1000;
    expect(byField.file_type).toEqual({
      request: { q: 'fox', collections: ['digital_assets'], sort_by: 'modified_at:desc' },
      filterQuery: { digital_assets: `(tags:=[\`red\`]) && (taken_at:>=${since}) && (camera_model:=\`X100V\`)` },
      commonSearchParams: { query_by: 'search_name', per_page: 1, page: 1, facet_by: 'file_type', max_facet_values: 10 },
      workspace_id_filter: '4',
    });
    expect(byField.camera_model!.filterQuery!.digital_assets).toBe(`(file_type:=image) && (tags:=[\`red\`]) && (taken_at:>=${since})`);
    expect(byField.taken_year!.filterQuery!.digital_assets).toBe('(file_type:=image) && (tags:=[`red`]) && (camera_model:=`X100V`)');
  });

  it('are read by field, text values as the filters compare them', () => {
    const facets = facetsOf([
      facet('visibility', [['0', 5], ['1', 2], ['2', 1]]),
      facet('camera_model', [['X100V', 3]]),
      facet('taken_year', [['2019', 4], ['2023', 1]]),
      facet('unknown', [['x', 1]]),
    ]);
    expect(Object.keys(facets)).toEqual(['visibility', 'camera_model', 'taken_year']);
    expect(visibilityCount(facets, 'public')).toBe(5);
    expect(visibilityCount(facets, 'private')).toBe(3);
    expect(countOf(facets, 'camera_model', 'x100v')).toBe(3);
    expect(countOf(facets, 'camera_model', 'Other')).toBe(0);
    expect(countOf(facets, 'orientation', 'landscape')).toBeUndefined();
    expect(facetOptions(facets, 'camera_model', 'Leica Q2').map((o) => o.value)).toEqual(['Leica Q2', 'X100V']);
    expect(takenYears(facets).map((y) => y.value)).toEqual(['2023', '2019']);
  });
});

function answer(facets: Record<string, [string, number][]>, found = 2): SearchResponse {
  return {
    results: [
      {
        collection: 'digital_assets',
        hits: [{ document: searchDoc({ id: '1', display_file_name: 'a.jpg', file_type: 'image', modified_at: 1 }) }],
        found,
        page: 1,
        request_params: { q: '*', collection: 'digital_assets', per_page: 24 },
        facet_counts: Object.entries(facets).map(([field_name, counts]) => facet(field_name, counts)),
      },
    ],
  };
}

describe('useAssetSearch with facets', () => {
  afterEach(() => vi.restoreAllMocks());

  it('merges the grid search counts with the apart ones, and does not repeat those for another page', async () => {
    const asked: SearchRequest[] = [];
    vi.spyOn(searchApi, 'search').mockImplementation(async (body) => {
      asked.push(body);
      return body.commonSearchParams?.facet_by === 'file_type' ? answer({ file_type: [['image', 7], ['video', 2]] }) : answer({ tags: [['red', 2]] });
    });
    const query = ref<LibraryQuery>({ ...emptyQuery(), fileTypes: ['video'] });
    const scope = effectScope();
    const search = scope.run(() => useAssetSearch(query, ref(5)))!;
    await flushPromises();
    expect(asked).toHaveLength(2);
    expect(search.facets.value.file_type).toEqual([{ value: 'image', count: 7 }, { value: 'video', count: 2 }]);
    expect(search.facets.value.tags).toEqual([{ value: 'red', count: 2 }]);

    query.value = { ...query.value, page: 2 };
    await flushPromises();
    expect(asked).toHaveLength(3);
    expect(search.facets.value.file_type).toHaveLength(2);
    // A reload (after an upload, a bulk action, a generation) counts everything again.
    await search.reload();
    expect(asked).toHaveLength(5);
    scope.stop();
  });

  it('shows the grid when an apart count fails, without its numbers', async () => {
    vi.spyOn(searchApi, 'search').mockImplementation(async (body) => {
      if (body.commonSearchParams?.facet_by === 'orientation') throw new Error('boom');
      return answer({ tags: [] });
    });
    const scope = effectScope();
    const search = scope.run(() => useAssetSearch(ref({ ...emptyQuery(), orientation: 'portrait' as const }), ref(5)))!;
    await flushPromises();
    expect(search.error.value).toBeNull();
    expect(search.docs.value).toHaveLength(1);
    expect(search.facets.value.orientation).toBeUndefined();
    scope.stop();
  });
});

describe('SearchFilters with counts', () => {
  const facets: Facets = {
    file_type: [{ value: 'image', count: 4 }, { value: 'document', count: 1 }],
    tags: [{ value: 'red', count: 3 }, { value: 'beach', count: 2 }],
    orientation: [{ value: 'landscape', count: 3 }],
    visibility: [{ value: '0', count: 4 }, { value: '1', count: 1 }],
    camera_model: [{ value: 'X100V', count: 2 }],
    creator: [],
    taken_year: [{ value: '2021', count: 1 }, { value: '2023', count: 2 }],
  };

  it('shows each value with its count and turns a click into the filter', async () => {
    const wrapper = mount(SearchFilters, { props: { modelValue: { ...emptyQuery(), tags: ['red'] }, workspaceId: 1, facets } });
    const chip = (label: string) => wrapper.findAll('button.toggle').find((b) => b.text().startsWith(label))!;
    expect(chip('Images').text()).toBe('Images4');
    expect(chip('Videos').text()).toBe('Videos0');
    expect(wrapper.get('#filter-orientation').text()).toContain('Landscape (3)');
    expect(wrapper.get('#filter-orientation').text()).toContain('Portrait (0)');
    expect(wrapper.get('#filter-visibility').text()).toContain('Private (1)');
    expect(wrapper.get('#filter-camera').text()).toContain('X100V (2)');
    // No creator among the results: no creator filter.
    expect(wrapper.find('#filter-creator').exists()).toBe(false);
    // The tag already asked for is not offered again.
    const offered = wrapper.get('[aria-label="Frequent tags"]').findAll('button').map((b) => b.text());
    expect(offered).toEqual(['beach2']);

    await wrapper.get('[aria-label="Frequent tags"] button').trigger('click');
    await chip('2023').trigger('click');
    await wrapper.get('#filter-camera').setValue('X100V');
    await wrapper.get('#filter-taken-to').setValue('2024-05-01');
    await wrapper.get('#filter-taken-to').trigger('change');
    const emitted = wrapper.emitted('update:modelValue')!.map((e) => e[0] as LibraryQuery);
    expect(emitted[0]!.tags).toEqual(['red', 'beach']);
    expect(emitted[1]).toMatchObject({ takenFrom: '2023-01-01', takenTo: '2023-12-31', page: 1 });
    expect(emitted[2]!.camera).toBe('X100V');
    expect(emitted.at(-1)!.takenTo).toBe('2024-05-01');
  });

  it('marks the chosen year and clears it with a second click; sorts by date taken', async () => {
    const wrapper = mount(SearchFilters, { props: { modelValue: { ...emptyQuery(), takenFrom: '2023-01-01', takenTo: '2023-12-31' }, workspaceId: 1, facets } });
    await nextTick();
    const year = wrapper.get('[aria-label="Years taken"]').findAll('button');
    expect(year.map((b) => [b.text(), b.attributes('aria-pressed')])).toEqual([
      ['20232', 'true'],
      ['20211', 'false'],
    ]);
    await year[0]!.trigger('click');
    expect(wrapper.emitted('update:modelValue')![0]![0]).toMatchObject({ takenFrom: '', takenTo: '' });
    expect(wrapper.get('#search-sort').text()).toContain('Date taken, newest');
  });
});
