import { flushPromises, mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import type { TrashApi } from '../src/api/trash';
import type { TrashItem } from '../src/api/types';
import TrashPanel from '../src/components/TrashPanel.vue';
import { toasts } from '../src/stores/toasts';

const now = Math.floor(Date.now() / 1000);
function item(kind: TrashItem['kind'], id: number, name: string): TrashItem {
  return {
    kind,
    id,
    name,
    folder_id: null,
    deleted_at: now - 3600,
    purge_at: now - 3600 + 30 * 86400,
    deleted_by: 'Ada',
    file_type: kind === 'asset' ? 'image' : null,
    mime_type: kind === 'asset' ? 'image/png' : null,
    file_size: kind === 'asset' ? 2048 : null,
    thumbnail_url: null,
  };
}

function fakeApi(items: TrashItem[]) {
  let listed = items;
  const api = {
    list: vi.fn(async () => ({ items: listed, page: 1, per_page: 50, total: listed.length })),
    restore: vi.fn(async (_ws: number, ids: Partial<Record<TrashItem['kind'], number[]>>) => {
      const asked = Object.entries(ids).flatMap(([kind, list]) => (list ?? []).map((id) => ({ kind: kind as TrashItem['kind'], id })));
      listed = listed.filter((i) => !asked.some((a) => a.kind === i.kind && a.id === i.id));
      // The second asset was purged meanwhile.
      return { results: asked.map((a) => (a.id === 2 ? { ...a, ok: false, code: 'NOT_FOUND', error: 'gone' } : { ...a, ok: true })) };
    }),
    empty: vi.fn(async () => ({ deleted_assets: listed.length, deleted_folders: 0, deleted_collections: 0 })),
  };
  return api as typeof api & TrashApi;
}

describe('TrashPanel', () => {
  it('restores the selected items by kind and says which could not be', async () => {
    toasts.splice(0);
    const api = fakeApi([item('asset', 1, 'a.png'), item('asset', 2, 'b.png'), item('folder', 8, 'Old'), item('collection', 9, 'Picks')]);
    const wrapper = mount(TrashPanel, { props: { workspaceId: 5, canManage: true, isAdmin: false, api } });
    await flushPromises();
    expect(wrapper.findAll('tbody tr')).toHaveLength(4);
    expect(wrapper.text()).toContain('stay here for 30 days');
    expect(wrapper.find('tbody tr').text()).toContain('in 30 days');
    // Managers restore; only admins empty the trash.
    expect(wrapper.findAll('button').some((b) => b.text().includes('Empty trash'))).toBe(false);

    for (const key of ['asset:1', 'asset:2', 'folder:8']) await wrapper.get(`[data-trash="${key}"] input`).setValue(true);
    await wrapper.findAll('button').find((b) => b.text().startsWith('Restore'))!.trigger('click');
    await flushPromises();
    expect(api.restore).toHaveBeenCalledWith(5, { asset: [1, 2], folder: [8] });
    expect(toasts.map((t) => t.text)).toEqual(['2 items restored', '1 of 3 could not be restored: “b.png” (no longer in the trash).']);
    expect(wrapper.emitted('restored')).toHaveLength(1);
    expect(wrapper.findAll('tbody tr')).toHaveLength(1);
  });

  it('shows the empty state, and viewers get no selection', async () => {
    const empty = mount(TrashPanel, { props: { workspaceId: 5, canManage: true, isAdmin: true, api: fakeApi([]) } });
    await flushPromises();
    expect(empty.text()).toContain('The trash is empty');
    const viewer = mount(TrashPanel, { props: { workspaceId: 5, canManage: false, isAdmin: false, api: fakeApi([item('asset', 1, 'a.png')]) } });
    await flushPromises();
    expect(viewer.findAll('input[type="checkbox"]')).toHaveLength(0);
    expect(viewer.findAll('button').some((b) => b.text().startsWith('Restore'))).toBe(false);
  });
});
