import { describe, expect, it } from 'vitest';
import { activeFilterCount, assetFilter, emptyQuery, fromRoute, searchRequest, toRoute } from '../src/search/filters';

describe('the library filter (seed 4.1 grammar)', () => {
  it('is empty without filters', () => {
    expect(assetFilter(emptyQuery())).toBe('');
  });

  it('puts each condition in parentheses joined with &&, one condition per tag', () => {
    const q = { ...emptyQuery(), fileTypes: ['image' as const], tags: ['red', 'summer sale'], orientation: 'landscape' as const, visibility: 'private' as const, modifiedSince: 1_700_000_000 };
    expect(assetFilter(q)).toBe(
      '(file_type:=image) && (tags:=[`red`]) && (tags:=[`summer sale`]) && (orientation:=landscape) && (visibility:!=0) && (modified_at:>=1700000000)',
    );
  });

  it('lists several file types as any-of, public as visibility:=0, and narrows to a folder or a collection', () => {
    const q = { ...emptyQuery(), fileTypes: ['image' as const, 'video' as const], visibility: 'public' as const, folderId: 4 };
    expect(assetFilter(q)).toBe('(file_type:=[image, video]) && (visibility:=0) && (folder_id:=4)');
    expect(assetFilter({ ...emptyQuery(), collectionId: 7 })).toBe('(collection_id:=7)');
    // Include sub-folders (issue #27): the folder and the ones below it, which the library fills in.
    expect(assetFilter({ ...emptyQuery(), folderId: 4, subfolders: true, belowIds: [9, 12] })).toBe('(folder_id:=[4, 9, 12])');
    expect(assetFilter({ ...emptyQuery(), folderId: 4, subfolders: true, belowIds: [] })).toBe('(folder_id:=4)');
    expect(assetFilter({ ...emptyQuery(), folderId: 4, subfolders: false, belowIds: [9] })).toBe('(folder_id:=4)');
    expect(toRoute({ ...emptyQuery(), folderId: 4, subfolders: true }, 1)).toEqual({ ws: '1', folder: '4', subfolders: '1' });
    expect(toRoute({ ...emptyQuery(), subfolders: true }, 1)).toEqual({ ws: '1' });
    expect(fromRoute({ folder: '4', subfolders: '1' })).toMatchObject({ folderId: 4, subfolders: true });
    expect(fromRoute({ subfolders: '1' })).toMatchObject({ folderId: null, subfolders: false });
  });

  it('asks for unreadable files only when that box is checked (issue #27), and keeps it in the URL', () => {
    const q = { ...emptyQuery(), unreadable: true, fileTypes: ['image' as const] };
    expect(assetFilter(q)).toBe('(file_type:=image) && (unreadable:true)');
    expect(activeFilterCount(q)).toBe(2);
    expect(toRoute(q, 3)).toMatchObject({ unreadable: '1' });
    expect(fromRoute({ unreadable: '1' }).unreadable).toBe(true);
    expect(fromRoute({ unreadable: 'yes' }).unreadable).toBe(false);
    expect(assetFilter(emptyQuery())).toBe('');
  });

  it('cannot be broken out of by a tag', () => {
    expect(assetFilter({ ...emptyQuery(), tags: ['a`] || (visibility:=0'] })).toBe('(tags:=[`a] || (visibility:=0`])');
  });

  it('builds the seed 2.1 request with workspace_id_filter as a string', () => {
    const body = searchRequest({ ...emptyQuery(), q: '  beach ', page: 2, tags: ['red'] }, 12);
    expect(body).toEqual({
      request: { q: 'beach', collections: ['digital_assets'], sort_by: 'modified_at:desc' },
      filterQuery: { digital_assets: '(tags:=[`red`])' },
      commonSearchParams: { query_by: 'search_name', per_page: 24, page: 2 },
      workspace_id_filter: '12',
    });
    expect(searchRequest(emptyQuery(), 1).request.q).toBe('*');
    expect(searchRequest(emptyQuery(), 1).filterQuery).toBeUndefined();
  });

  it('round-trips through the URL and ignores malformed values', () => {
    const q = { ...emptyQuery(), q: 'x', fileTypes: ['audio' as const], tags: ['a', 'b'], orientation: 'portrait' as const, visibility: 'public' as const, modifiedSince: 5, sort: 'created_at:asc' as const, page: 3, folderId: 2, collectionId: null };
    const route = toRoute(q, 9);
    expect(route.ws).toBe('9');
    expect(fromRoute(route)).toEqual(q);
    expect(fromRoute({ type: 'image,bogus', orientation: 'diagonal', page: '-1', folder: 'x', sort: 'name' })).toEqual({ ...emptyQuery(), fileTypes: ['image'] });
    expect(activeFilterCount(q)).toBe(5);
  });
});
