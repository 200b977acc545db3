import type { VideoPreview } from '../api/types';
import { translate } from '../i18n';

/**
 * How the asset page plays a version (issue #15). Videos play their web-playable preview (an
 * H.264/AAC MP4 within 720p the server makes after upload, or the file itself when it already is
 * one); while it is being made the page says so over the poster frame; when none can be made the
 * file itself is offered, which the browser may or may not decode. Audio plays the file.
 */
export type Playback =
  | { kind: 'video'; src: string; poster: string | null; note: string | null }
  | { kind: 'preparing'; poster: string | null; fallback: string | null }
  | { kind: 'audio'; src: string };

export interface PlayableVersion {
  mime_type: string;
  file_url: string | null;
  /** Absent: a server without video previews; null: not a video, or previews turned off. */
  video_preview?: VideoPreview | null;
}

/** Null for what is not audio or video (images and documents are drawn, not played). */
export function playbackOf(v: PlayableVersion, poster: string | null = null): Playback | null {
  const mime = v.mime_type.toLowerCase();
  if (mime.startsWith('audio/')) return v.file_url ? { kind: 'audio', src: v.file_url } : null;
  if (!mime.startsWith('video/')) return null;
  const preview = v.video_preview;
  if (preview?.status === 'ready' && preview.url) return { kind: 'video', src: preview.url, poster, note: null };
  if (preview?.status === 'pending') return { kind: 'preparing', poster, fallback: v.file_url };
  if (!v.file_url) return null;
  if (preview && (preview.status === 'unavailable' || preview.status === 'failed')) {
    const note = preview.note
      ? translate('asset.preview.noPlayableWhy', { why: preview.note.replace(/\.$/, '') })
      : translate('asset.preview.noPlayable');
    return { kind: 'video', src: v.file_url, poster, note };
  }
  return { kind: 'video', src: v.file_url, poster, note: null };
}

/** Whether the version's preview is still being made (the page then reads the version again). */
export function isPreparing(v: PlayableVersion | null | undefined): boolean {
  return v?.video_preview?.status === 'pending';
}
