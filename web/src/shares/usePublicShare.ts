import { onScopeDispose, ref, shallowRef } from 'vue';
import { publicShareApi, withShareToken, type PublicShareApi } from '../api/public-share';
import type { PublicShare, ShareItem } from '../api/shares';
import { translate } from '../i18n';
import { followDownload } from '../util/save';
import { shareProblem, ShareTokenStore, type ShareProblem } from './public';

/**
 * The state of a shared link's public page (/s/:key, issue #14): its items a page at a time, the
 * password prompt and its throttle, and downloads. Nothing here reads or writes the signed-in
 * session: the page works the same for a visitor and for a member of the workspace.
 *
 * Downloads are followed by the browser itself (an attachment streams to disk, however large), so
 * the page would not see a refusal: a HEAD of the same URL first (the server counts no download for
 * it) says whether the file would come, and a refusal is shown in words instead. Between the two
 * another visitor may take the last download of a limited link; the browser then reports a failed
 * download.
 */

export const PUBLIC_PER_PAGE = 48;

export type PublicPhase = 'loading' | 'ready' | 'password' | 'problem';

export interface PublicShareDeps {
  api: Pick<PublicShareApi, 'view' | 'unlock' | 'check'>;
  tokens: Pick<ShareTokenStore, 'get' | 'save' | 'forget'>;
  /** Hands a URL to the browser as a download. */
  save: (url: string) => void;
  now: () => number;
}

export function usePublicShare(key: () => string, deps: Partial<PublicShareDeps> = {}) {
  const { api, tokens, save, now } = { api: publicShareApi, tokens: new ShareTokenStore(), save: followDownload, now: Date.now, ...deps };

  const phase = ref<PublicPhase>('loading');
  const share = shallowRef<PublicShare | null>(null);
  /** Why the page cannot show the link (gone, too many requests, network). */
  const problem = ref<ShareProblem | null>(null);
  /** The password prompt's message (wrong password, too many tries, access ended). */
  const unlockProblem = ref<ShareProblem | null>(null);
  /** A refused download (limit reached, downloads off, too many requests). */
  const downloadProblem = ref<ShareProblem | null>(null);
  const unlocking = ref(false);
  const paging = ref(false);
  /** The item being checked before its download ('all': the ZIP). */
  const downloading = ref<number | 'all' | null>(null);
  /** Until when (ms) a 429 asks to wait; `clock` ticks each second meanwhile, for the countdown. */
  const retryAt = ref<number | null>(null);
  const clock = ref(now());
  let ticker: ReturnType<typeof setInterval> | undefined;

  function waitFor(p: ShareProblem): void {
    if (p.kind !== 'rate-limited' || !p.retryAfter) return;
    retryAt.value = now() + p.retryAfter * 1000;
    clock.value = now();
    clearInterval(ticker);
    ticker = setInterval(() => {
      clock.value = now();
      if (retryAt.value === null || clock.value >= retryAt.value) {
        retryAt.value = null;
        clearInterval(ticker);
      }
    }, 1000);
  }
  onScopeDispose(() => clearInterval(ticker));
  /** Seconds still to wait; 0 when free to try. */
  const waitLeft = () => (retryAt.value === null ? 0 : Math.max(0, Math.ceil((retryAt.value - clock.value) / 1000)));

  function askPassword(message: ShareProblem | null): void {
    tokens.forget(key());
    share.value = null;
    unlockProblem.value = message;
    phase.value = 'password';
  }

  function fail(p: ShareProblem): void {
    problem.value = p;
    phase.value = 'problem';
    waitFor(p);
  }

  async function load(page = 1): Promise<void> {
    if (share.value) paging.value = true;
    else phase.value = 'loading';
    try {
      share.value = await api.view(key(), tokens.get(key()), page, PUBLIC_PER_PAGE);
      problem.value = null;
      phase.value = 'ready';
    } catch (err) {
      const p = shareProblem(err);
      if (p.kind === 'password') askPassword(null);
      else fail(p);
    } finally {
      paging.value = false;
    }
  }

  async function unlock(password: string, page = 1): Promise<void> {
    if (unlocking.value || waitLeft() > 0) return;
    unlocking.value = true;
    unlockProblem.value = null;
    try {
      const granted = await api.unlock(key(), password);
      tokens.save(key(), granted.token, granted.expires_at);
      await load(page);
    } catch (err) {
      const p = shareProblem(err);
      if (p.kind === 'gone' || p.kind === 'network') fail(p);
      else {
        unlockProblem.value = p;
        waitFor(p);
      }
    } finally {
      unlocking.value = false;
    }
  }

  async function download(item: ShareItem | 'all'): Promise<void> {
    const current = share.value;
    const url = item === 'all' ? current?.zip_url : item.download_url;
    if (!current || !url || downloading.value !== null) return;
    downloading.value = item === 'all' ? 'all' : item.id;
    downloadProblem.value = null;
    const token = tokens.get(key());
    try {
      await api.check(url, token);
      save(withShareToken(url, token));
      if (current.downloads_left !== null) share.value = { ...current, downloads_left: Math.max(0, current.downloads_left - 1) };
    } catch (err) {
      const p = shareProblem(err);
      if (p.kind === 'password') askPassword({ ...p, detail: translate('shares.problem.accessEnded') });
      else if (p.kind === 'gone') fail(p);
      else {
        if (p.kind === 'limit') share.value = { ...current, downloads_left: 0 };
        if (p.kind === 'downloads-off') share.value = { ...current, allow_download: false, zip_url: null, items: current.items.map((i) => ({ ...i, download_url: null })) };
        downloadProblem.value = p;
        waitFor(p);
      }
    } finally {
      downloading.value = null;
    }
  }

  return { phase, share, problem, unlockProblem, downloadProblem, unlocking, paging, downloading, clock, waitLeft, load, unlock, download };
}
