import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/http';
import type { Asset, Version } from '../src/api/types';
import type { VersionsApi } from '../src/api/versions';
import VersionHistory from '../src/components/VersionHistory.vue';

function version(n: number, overrides: Partial<Version> = {}): Version {
  return {
    id: 100 + n,
    version: `v${n}`,
    asset_id: 7,
    file_name: `photo-${n}.jpg`,
    display_file_name: 'Photo',
    file_size: 1000 * n,
    mime_type: 'image/jpeg',
    created_at: '2025-01-31T12:00:00.000Z',
    created_by: 'Ada',
    thumbnail_url: `http://127.0.0.1/media/versions/${100 + n}/thumbnail?signature=x`,
    file_url: `http://127.0.0.1/media/versions/${100 + n}/file?signature=x`,
    is_current: false,
    metadata: { camera: 'X100' },
    preview_status: 'ready',
    video_preview: null,
    page_count: null,
    restored_from: null,
    sha256: null,
    ...overrides,
  };
}

/** v2 current, v1 history; newest first as the API answers. */
function fakeApi(overrides: Partial<VersionsApi> = {}) {
  let versions = [version(2, { is_current: true }), version(1)];
  const api = {
    list: vi.fn(async () => versions),
    upload: vi.fn(async (_assetId: number, file: File, onProgress?: (l: number, t: number) => void) => {
      onProgress?.(file.size / 2, file.size);
      onProgress?.(file.size, file.size);
      const created = version(3, { is_current: true, file_name: file.name });
      versions = [created, ...versions.map((v) => ({ ...v, is_current: false }))];
      return created;
    }),
    restore: vi.fn(async (id: number) => {
      const restored = version(3, { is_current: true, file_name: versions.find((v) => v.id === id)!.file_name });
      versions = [restored, ...versions.map((v) => ({ ...v, is_current: false }))];
      return { id: 7 } as Asset;
    }),
    preview: vi.fn(async () => ({ url: 'http://127.0.0.1/preview', mime_type: 'image/webp', width: 10, height: 10 })),
    download: vi.fn(async () => new Blob(['bytes'])),
    ...overrides,
  };
  return api as typeof api & VersionsApi;
}

async function mountHistory(api: VersionsApi, canManage = true) {
  const wrapper = mount(VersionHistory, { props: { assetId: 7, canManage, api }, attachTo: document.body });
  await flushPromises();
  return wrapper;
}

const row = (wrapper: Awaited<ReturnType<typeof mountHistory>>, label: string) => wrapper.get(`[data-version="${label}"]`);

describe('VersionHistory (seed 6 events)', () => {
  beforeEach(() => {
    URL.createObjectURL = vi.fn(() => 'blob:fake');
    URL.revokeObjectURL = vi.fn();
  });
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('lists the versions newest first with the current one marked', async () => {
    const wrapper = await mountHistory(fakeApi());
    const labels = wrapper.findAll('[data-version]').map((li) => li.attributes('data-version'));
    expect(labels).toEqual(['v2', 'v1']);
    expect(row(wrapper, 'v2').text()).toContain('Current');
    expect(row(wrapper, 'v1').text()).not.toContain('Current');
    expect(row(wrapper, 'v2').find('button.btn').exists()).toBe(false); // no restore of the current version
  });

  it('emits version-selected with the version object when a version is selected', async () => {
    const wrapper = await mountHistory(fakeApi());
    await row(wrapper, 'v1').get('button.pick').trigger('click');
    expect(wrapper.emitted('version-selected')).toEqual([[version(1)]]);
    expect(row(wrapper, 'v1').text()).toContain('X100'); // its metadata is shown
  });

  it('emits preview-version with the version object when a preview is requested', async () => {
    const wrapper = await mountHistory(fakeApi());
    await row(wrapper, 'v1').get('button[aria-label="Preview v1"]').trigger('click');
    expect(wrapper.emitted('preview-version')).toEqual([[version(1)]]);
  });

  it('emits version-downloaded with the version object once the file is handed over', async () => {
    const api = fakeApi();
    const wrapper = await mountHistory(api);
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    await row(wrapper, 'v1').get('button[aria-label="Download v1"]').trigger('click');
    await flushPromises();
    expect(api.download).toHaveBeenCalledWith(101);
    expect(click).toHaveBeenCalledOnce();
    expect(wrapper.emitted('version-downloaded')).toEqual([[version(1)]]);
    click.mockRestore();
  });

  it('emits version-restored with the restored version object after the server restored it', async () => {
    const api = fakeApi();
    const wrapper = await mountHistory(api);
    await row(wrapper, 'v1').get('button.btn').trigger('click');
    await flushPromises();
    expect(api.restore).toHaveBeenCalledWith(101);
    expect(wrapper.emitted('version-restored')).toEqual([[version(1)]]);
    // The list is reloaded: the restore made a new current version.
    expect(wrapper.findAll('[data-version]').map((li) => li.attributes('data-version'))).toEqual(['v3', 'v2', 'v1']);
    expect(row(wrapper, 'v3').text()).toContain('Current');
  });

  it('emits version-uploaded with the new version object, showing progress meanwhile', async () => {
    let release: () => void = () => undefined;
    const api = fakeApi();
    const upload = api.upload;
    api.upload = vi.fn(async (...args: Parameters<VersionsApi['upload']>) => {
      args[2]?.(512, 1024);
      await new Promise<void>((resolve) => (release = resolve));
      return upload(...args);
    });
    const wrapper = await mountHistory(api);
    const input = wrapper.get<HTMLInputElement>('input[type=file]');
    const file = new File(['x'.repeat(1024)], 'new-shot.jpg', { type: 'image/jpeg' });
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
    await input.trigger('change');
    await flushPromises();
    expect(wrapper.get('[role=progressbar]').attributes('aria-valuenow')).toBe('50');
    release();
    await flushPromises();
    const emitted = wrapper.emitted('version-uploaded');
    expect(emitted).toHaveLength(1);
    expect(emitted![0]![0]).toMatchObject({ version: 'v3', file_name: 'new-shot.jpg', is_current: true });
    expect(wrapper.find('[role=progressbar]').exists()).toBe(false);
  });

  it('shows viewers no upload or restore controls (seed 5.5), but preview and download', async () => {
    const wrapper = await mountHistory(fakeApi(), false);
    expect(wrapper.text()).not.toContain('Upload new version');
    expect(wrapper.find('input[type=file]').exists()).toBe(false);
    expect(wrapper.findAll('button').some((b) => b.text().includes('Restore'))).toBe(false);
    expect(row(wrapper, 'v1').find('button[aria-label="Download v1"]').exists()).toBe(true);
    expect(row(wrapper, 'v1').find('button[aria-label="Preview v1"]').exists()).toBe(true);
  });

  it('says so when the server has no version history, and shows errors with a retry', async () => {
    const missing = await mountHistory(fakeApi({ list: vi.fn(async () => Promise.reject(new ApiError('Route GET /dam/assets/7/versions not found', 404, 'NOT_FOUND'))) }));
    expect(missing.text()).toContain('not available on this server');
    const list = vi.fn().mockRejectedValueOnce(new ApiError('boom', 500)).mockResolvedValue([version(1, { is_current: true })]);
    const failing = await mountHistory(fakeApi({ list }));
    expect(failing.text()).toContain('could not be loaded');
    await failing.findAll('button').find((b) => b.text() === 'Try again')!.trigger('click');
    await flushPromises();
    expect(failing.findAll('[data-version]')).toHaveLength(1);
  });
});

describe('VersionHistory (issue #11)', () => {
  it('marks a version made by a restore with the version it copies, and counts a document’s pages', async () => {
    const api = fakeApi({
      list: vi.fn(async () => [
        version(3, { is_current: true, restored_from: { id: 101, version: 'v1' }, page_count: 12 }),
        version(2, { restored_from: null, page_count: 1 }),
        version(1),
      ]),
    });
    const wrapper = await mountHistory(api);
    expect(row(wrapper, 'v3').text()).toContain('restored from v1');
    expect(row(wrapper, 'v3').text()).toContain('12 pages');
    expect(row(wrapper, 'v2').text()).not.toContain('restored from');
    expect(row(wrapper, 'v2').text()).toContain('1 page ·');
    wrapper.unmount();
  });
});
