import { computed, getCurrentScope, onScopeDispose, ref } from 'vue';
import type { Version } from '../api/types';
import { versionsApi, type VersionsApi } from '../api/versions';
import { isPreparing, playbackOf } from '../media/playback';
import { pollWithBackoff, type Backoff } from '../util/backoff';
import { isGenericIcon } from '../util/thumbnails';

/**
 * A transcode takes about as long as the video plays (longer for 4K), so the version is read
 * again after 2, 4, 8, 10, 10 … s for up to fifteen minutes; after that the page says it is
 * still being prepared (a reload shows it).
 */
export const VIDEO_PREVIEW_BACKOFF: Backoff = { firstMs: 2000, maxMs: 10_000, limitMs: 15 * 60_000 };

/**
 * The playback of the version the asset page shows (issue #15): its poster (the large preview
 * frame, else the thumbnail) and, while its video preview is being made, reads of the asset's
 * versions with backoff until the preview is ready, failed or unavailable, so the player appears
 * without a reload.
 */
export function useVersionPlayback(options: { api?: Pick<VersionsApi, 'list' | 'preview'>; backoff?: Backoff } = {}) {
  const api = options.api ?? versionsApi;
  const version = ref<Version | null>(null);
  const poster = ref<string | null>(null);
  /** Still being prepared when the reads stopped. */
  const slow = ref(false);
  const playback = computed(() => (version.value ? playbackOf(version.value, poster.value) : null));
  let poll: { stop: () => void } | undefined;
  /** Bumped by show(): answers about an earlier version are dropped. */
  let shown = 0;

  async function loadPoster(v: Version, ticket: number): Promise<void> {
    const thumb = isGenericIcon(v.thumbnail_url) ? null : v.thumbnail_url;
    if (!v.mime_type.startsWith('video/')) return;
    let url = thumb;
    if (v.preview_status === 'ready') url = await api.preview(v.id).then((p) => p.url, () => thumb);
    if (ticket === shown && url) poster.value = url;
  }

  /** Shows `v` (null: nothing); reads it again while its video preview is pending. */
  function show(v: Version | null): void {
    // The same version listed again (the history reads the list while thumbnails are made): keep the
    // object shown, so a re-signed URL does not restart a playing video, and keep following it.
    const cur = version.value;
    if (v && cur && cur.id === v.id && cur.preview_status === v.preview_status && cur.video_preview?.status === v.video_preview?.status) {
      if (poll || !isPreparing(v)) return;
    }
    poll?.stop();
    poll = undefined;
    slow.value = false;
    const ticket = ++shown;
    if (version.value?.id !== v?.id) poster.value = null;
    version.value = v;
    if (!v) return;
    void loadPoster(v, ticket);
    if (!isPreparing(v)) return;
    let last = v;
    const mine = pollWithBackoff(async () => {
      const fresh = (await api.list(v.asset_id)).find((x) => x.id === v.id);
      if (ticket !== shown) return true;
      // Deleted meanwhile: nothing more to wait for.
      if (!fresh) return true;
      const posterCame = fresh.preview_status !== last.preview_status;
      last = fresh;
      version.value = fresh;
      if (posterCame) void loadPoster(fresh, ticket);
      return !isPreparing(fresh);
    }, options.backoff ?? VIDEO_PREVIEW_BACKOFF);
    poll = mine;
    void mine.outcome.then((outcome) => {
      if (outcome === 'gave-up' && ticket === shown) slow.value = true;
    });
  }

  if (getCurrentScope()) onScopeDispose(() => poll?.stop());
  return { version, poster, slow, playback, show };
}
