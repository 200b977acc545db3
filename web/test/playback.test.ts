import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';
import type { Asset, Version, VideoPreview } from '../src/api/types';
import type { ShareItem } from '../src/api/shares';
import AssetPreview from '../src/components/AssetPreview.vue';
import ShareLightbox from '../src/components/ShareLightbox.vue';
import { useVersionPlayback } from '../src/composables/useVersionPlayback';
import { playbackOf } from '../src/media/playback';

const FILE = 'http://dam.test/media/versions/3/file?expires=1&signature=a';
const VIDEO = 'http://dam.test/media/versions/3/video?expires=1&signature=b';
const POSTER = 'http://dam.test/media/versions/3/preview?expires=1&signature=c';
const ICON = 'http://dam.test/media/icons/video.svg';

const preview = (status: VideoPreview['status'], overrides: Partial<VideoPreview> = {}): VideoPreview => ({
  status,
  url: status === 'ready' ? VIDEO : null,
  mime_type: status === 'ready' ? 'video/mp4' : null,
  source: status === 'ready' ? 'transcode' : null,
  note: null,
  ...overrides,
});

function version(overrides: Partial<Version> = {}): Version {
  return {
    id: 3,
    version: 'v1',
    asset_id: 7,
    file_name: 'clip.mov',
    display_file_name: 'clip.mov',
    file_size: 1000,
    mime_type: 'video/quicktime',
    created_at: '2025-01-01T00:00:00.000Z',
    created_by: 'Ann',
    thumbnail_url: ICON,
    file_url: FILE,
    is_current: true,
    metadata: {},
    preview_status: 'pending',
    video_preview: preview('pending'),
    page_count: null,
    restored_from: null,
    sha256: null,
    ...overrides,
  };
}

describe('playbackOf', () => {
  it('plays the preview MP4 when ready, says "preparing" while pending, and offers the file when none can be made', () => {
    expect(playbackOf(version({ video_preview: preview('ready') }), POSTER)).toEqual({ kind: 'video', src: VIDEO, poster: POSTER, note: null });
    expect(playbackOf(version(), POSTER)).toEqual({ kind: 'preparing', poster: POSTER, fallback: FILE });
    expect(playbackOf(version({ video_preview: preview('unavailable', { note: 'ffmpeg is not installed.' }) }))).toEqual({
      kind: 'video',
      src: FILE,
      poster: null,
      note: 'No playable preview could be made (ffmpeg is not installed). This is the original file, which this browser may not play.',
    });
    // A server without video previews (or with them off): the file, as before.
    expect(playbackOf(version({ video_preview: undefined }))).toMatchObject({ kind: 'video', src: FILE, note: null });
    expect(playbackOf(version({ video_preview: null }))).toMatchObject({ kind: 'video', src: FILE, note: null });
  });

  it('plays audio from the file, and leaves images and documents to be drawn', () => {
    expect(playbackOf(version({ mime_type: 'audio/mpeg', video_preview: null }))).toEqual({ kind: 'audio', src: FILE });
    expect(playbackOf(version({ mime_type: 'image/png', video_preview: null }))).toBeNull();
    expect(playbackOf(version({ mime_type: 'application/pdf', video_preview: null }))).toBeNull();
  });
});

describe('useVersionPlayback', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reads the version again with backoff while its preview is made, then plays it with the large frame as poster', async () => {
    const reads = [
      [version()],
      [version({ preview_status: 'ready', thumbnail_url: 'http://dam.test/t.webp' })],
      [version({ preview_status: 'ready', thumbnail_url: 'http://dam.test/t.webp', video_preview: preview('ready') })],
    ];
    const api = {
      list: vi.fn(async () => (reads.length > 1 ? reads.shift()! : reads[0]!)),
      preview: vi.fn(async () => ({ url: POSTER, mime_type: 'image/webp', width: 1440, height: 810 })),
    };
    const scope = effectScope();
    const player = scope.run(() => useVersionPlayback({ api, backoff: { firstMs: 2000, maxMs: 10_000, limitMs: 60_000 } }))!;
    player.show(version());
    await flushPromises();
    // No frame yet: the icon is not a poster.
    expect(player.playback.value).toEqual({ kind: 'preparing', poster: null, fallback: FILE });
    expect(api.preview).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2000);
    expect(player.playback.value?.kind).toBe('preparing');
    await vi.advanceTimersByTimeAsync(4000);
    expect(player.playback.value).toEqual({ kind: 'preparing', poster: POSTER, fallback: FILE });
    await vi.advanceTimersByTimeAsync(8000);
    expect(player.playback.value).toEqual({ kind: 'video', src: VIDEO, poster: POSTER, note: null });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(api.list).toHaveBeenCalledTimes(3);
    expect(api.preview).toHaveBeenCalledTimes(1);

    // The same version listed again with fresh signatures: the shown one stays (a playing video is not restarted).
    player.show(version({ preview_status: 'ready', video_preview: preview('ready', { url: `${VIDEO}x` }) }));
    expect(player.playback.value).toMatchObject({ src: VIDEO });
    scope.stop();
  });

  it('says it is still being prepared when the reads stop first', async () => {
    const api = { list: vi.fn(async () => [version()]), preview: vi.fn() };
    const scope = effectScope();
    const player = scope.run(() => useVersionPlayback({ api, backoff: { firstMs: 1000, maxMs: 1000, limitMs: 3000 } }))!;
    player.show(version());
    await vi.advanceTimersByTimeAsync(5000);
    expect(player.slow.value).toBe(true);
    expect(api.list).toHaveBeenCalledTimes(3);
    scope.stop();
  });
});

describe('AssetPreview playing media', () => {
  const asset = { id: 7, display_file_name: 'clip.mov', file_type: 'video', mime_type: 'video/quicktime', modified_at: 1 } as Asset;
  const source = { url: FILE, mimeType: 'video/quicktime', label: '' };

  it('shows the native player, the preparing state with the original on request, and the reason a file plays as it is', async () => {
    const ready = mount(AssetPreview, { props: { asset, source, playback: { kind: 'video', src: VIDEO, poster: POSTER, note: null } } });
    expect(ready.get('video').attributes()).toMatchObject({ src: VIDEO, poster: POSTER, controls: '' });

    const preparing = mount(AssetPreview, { props: { asset, source, playback: { kind: 'preparing', poster: POSTER, fallback: FILE } } });
    expect(preparing.get('[role="status"]').text()).toContain('Preparing a playable preview…');
    expect(preparing.get('img.poster').attributes('src')).toBe(POSTER);
    expect(preparing.find('video').exists()).toBe(false);
    await preparing.get('button').trigger('click');
    expect(preparing.get('video').attributes('src')).toBe(FILE);

    const slow = mount(AssetPreview, { props: { asset, source, slow: true, playback: { kind: 'preparing', poster: null, fallback: null } } });
    expect(slow.get('[role="status"]').text()).toContain('still being prepared');
    expect(slow.find('button').exists()).toBe(false);

    const note = 'No playable preview could be made. This is the original file, which this browser may not play.';
    const original = mount(AssetPreview, { props: { asset, source, playback: { kind: 'video', src: FILE, poster: null, note } } });
    expect(original.get('.note').text()).toBe(note);

    const audio = mount(AssetPreview, { props: { asset: { ...asset, file_type: 'audio', mime_type: 'audio/mpeg' }, source: null, playback: { kind: 'audio', src: FILE } } });
    expect(audio.get('audio').attributes('src')).toBe(FILE);
  });
});

describe('ShareLightbox playing a shared video', () => {
  const item = (overrides: Partial<ShareItem> = {}): ShareItem => ({
    id: 7,
    display_file_name: 'clip.mov',
    file_type: 'video',
    mime_type: 'video/quicktime',
    file_size: 1000,
    width: 640,
    height: 360,
    version: 'v1',
    folder_path: [],
    thumbnail_url: 'http://dam.test/t.webp',
    preview_url: POSTER,
    video_url: VIDEO,
    download_url: null,
    ...overrides,
  });

  it('plays video_url with the preview as poster; without one, shows the picture and says why', async () => {
    const items = [item(), item({ id: 8, video_url: null }), item({ id: 9, file_type: 'image', mime_type: 'image/png', video_url: undefined })];
    const wrapper = mount(ShareLightbox, { props: { items, index: 0, canDownload: false, downloading: false }, attachTo: document.body });
    expect(wrapper.get('video').attributes()).toMatchObject({ src: VIDEO, poster: POSTER, controls: '' });
    expect(wrapper.find('img').exists()).toBe(false);
    // The arrow keys seek in the focused player, not to the next file.
    await wrapper.get('video').trigger('keydown', { key: 'ArrowRight' });
    expect(wrapper.emitted('go')).toBeUndefined();
    await wrapper.get('.stage').trigger('keydown', { key: 'ArrowRight' });
    expect(wrapper.emitted('go')).toEqual([[1]]);
    await wrapper.setProps({ index: 1 });
    expect(wrapper.find('video').exists()).toBe(false);
    expect(wrapper.get('.stage img').attributes('src')).toBe(POSTER);
    expect(wrapper.text()).toContain('This video cannot be played here yet; its picture is shown.');
    await wrapper.setProps({ index: 2 });
    expect(wrapper.text()).not.toContain('cannot be played');
    wrapper.unmount();
  });
});
