import { flushPromises, mount, RouterLinkStub } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import type { ActivityApi } from '../src/api/activity';
import type { ActivityEntry } from '../src/api/types';
import ActivityList from '../src/components/ActivityList.vue';

function entry(id: number): ActivityEntry {
  return {
    id,
    workspace_id: 1,
    action: 'asset.update',
    actor: { id: 7, name: 'Ada' },
    subject: { kind: 'asset', id: 3, name: `photo-${id}.png` },
    asset_id: 3,
    changes: { display_file_name: { before: `photo-${id - 1}.png`, after: `photo-${id}.png` } },
    created_at: Math.floor(Date.now() / 1000) - 120,
  };
}

/** Entries 5..1, newest first, two per page, paged by cursor as the server does. */
function fakeApi() {
  const all = [5, 4, 3, 2, 1].map(entry);
  const list = vi.fn(async (_filter: unknown, before: number | null, limit: number) => {
    const rest = all.filter((e) => before === null || e.id < before);
    const items = rest.slice(0, limit);
    return { items, next_before: rest.length > limit ? items[items.length - 1]!.id : null };
  });
  return { list } as unknown as ActivityApi & { list: typeof list };
}

const stubs = { RouterLink: RouterLinkStub };

describe('ActivityList', () => {
  it('reads the next page through the cursor until the last, then offers no more', async () => {
    const api = fakeApi();
    const wrapper = mount(ActivityList, { props: { workspaceId: 1, assetId: 3, api, pageSize: 2 }, global: { stubs } });
    await flushPromises();
    expect(api.list).toHaveBeenLastCalledWith({ workspaceId: 1, assetId: 3, userId: undefined }, null, 2);
    expect(wrapper.findAll('.entry')).toHaveLength(2);
    expect(wrapper.find('.entry').text()).toContain('Ada renamed photo-5.png');
    expect(wrapper.find('.changes').text()).toBe('Name: “photo-4.png” → “photo-5.png”');

    await wrapper.get('button.more').trigger('click');
    await flushPromises();
    expect(api.list).toHaveBeenLastCalledWith({ workspaceId: 1, assetId: 3, userId: undefined }, 4, 2);
    await wrapper.get('button.more').trigger('click');
    await flushPromises();
    expect(wrapper.findAll('.entry').map((e) => e.find('.subject').text())).toEqual(['photo-5.png', 'photo-4.png', 'photo-3.png', 'photo-2.png', 'photo-1.png']);
    expect(wrapper.find('button.more').exists()).toBe(false);
  });

  it('links an asset’s name in the workspace’s log, not in the asset’s own history', async () => {
    const ws = mount(ActivityList, { props: { workspaceId: 1, api: fakeApi(), pageSize: 2 }, global: { stubs } });
    await flushPromises();
    expect(ws.findComponent(RouterLinkStub).props('to')).toBe('/asset/3');
    const own = mount(ActivityList, { props: { workspaceId: 1, assetId: 3, api: fakeApi(), pageSize: 2 }, global: { stubs } });
    await flushPromises();
    expect(own.findComponent(RouterLinkStub).exists()).toBe(false);
  });

  it('reads the first page again when told to (after an edit on the page)', async () => {
    const api = fakeApi();
    const wrapper = mount(ActivityList, { props: { workspaceId: 1, assetId: 3, api, pageSize: 2 }, global: { stubs } });
    await flushPromises();
    await wrapper.setProps({ reloadKey: 1 });
    await flushPromises();
    expect(api.list).toHaveBeenCalledTimes(2);
    expect(api.list).toHaveBeenLastCalledWith(expect.anything(), null, 2);
  });
});
