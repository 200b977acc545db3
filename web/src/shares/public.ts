import { ApiError } from '../api/http';
import { translate } from '../i18n';
import { formatNumber } from '../util/format';

/**
 * The public page of a shared link (/s/:key, issue #14) without its components: where the
 * share-access token is kept, and what each refusal of the API means to a visitor.
 */

const PREFIX = 'dam.share-token.';

interface SavedToken {
  token: string;
  /** Unix seconds. */
  expires_at: number;
}

/**
 * The share-access tokens of unlocked links, one per key, in `sessionStorage`: they last as long as
 * the tab (and at most their own hour), are never sent to another link, and are apart from the
 * signed-in session, which lives in `localStorage`.
 */
export class ShareTokenStore {
  constructor(
    private readonly storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null = typeof sessionStorage === 'undefined' ? null : sessionStorage,
    private readonly now: () => number = Date.now,
  ) {}

  /** The link's token, unless it has expired (then it is forgotten). */
  get(key: string): string | null {
    try {
      const saved = JSON.parse(this.storage?.getItem(PREFIX + key) ?? 'null') as SavedToken | null;
      if (saved && typeof saved.token === 'string' && saved.expires_at > this.now() / 1000) return saved.token;
    } catch {
      // a damaged entry is the same as none
    }
    this.forget(key);
    return null;
  }

  save(key: string, token: string, expiresAt: number): void {
    try {
      this.storage?.setItem(PREFIX + key, JSON.stringify({ token, expires_at: expiresAt } satisfies SavedToken));
    } catch {
      // storage full or refused (private mode): the token lives as long as the page
    }
  }

  forget(key: string): void {
    try {
      this.storage?.removeItem(PREFIX + key);
    } catch {
      // nothing to forget
    }
  }
}

export type ShareProblemKind = 'gone' | 'password' | 'wrong-password' | 'limit' | 'downloads-off' | 'rate-limited' | 'network' | 'error';

export interface ShareProblem {
  kind: ShareProblemKind;
  /** A heading for a visitor. */
  title: string;
  /** What it means and what to do. */
  detail: string;
  /** rate-limited: seconds to wait (Retry-After). */
  retryAfter?: number;
  /** wrong-password: tries left before a pause. */
  attemptsLeft?: number;
}

/** "40 seconds", "1 minute", "14 minutes" (Intl, in the active language). */
export function formatWait(seconds: number): string {
  const long = (value: number, unit: 'second' | 'minute') => formatNumber(value, { style: 'unit', unit, unitDisplay: 'long' });
  if (seconds < 60) return long(Math.max(1, Math.ceil(seconds)), 'second');
  return long(Math.ceil(seconds / 60), 'minute');
}

/**
 * A refusal of the public API in a visitor's words. Decided by status (and code): HEAD checks of
 * downloads answer no body, so the status is all there is. An unknown, expired and revoked link
 * are one 404 on purpose (the server does not tell them apart), and so is this page.
 */
export function shareProblem(err: unknown): ShareProblem {
  const t = translate;
  if (!(err instanceof ApiError)) return { kind: 'error', title: t('shares.problem.error'), detail: err instanceof Error ? err.message : String(err) };
  if (err.isNetwork) return { kind: 'network', title: t('shares.problem.network'), detail: t('shares.problem.networkDetail') };
  switch (err.status) {
    case 404:
      return { kind: 'gone', title: t('shares.problem.gone'), detail: t('shares.problem.goneDetail') };
    case 401:
      if (err.code === 'SHARE_PASSWORD_WRONG') {
        const left = typeof err.details.attempts_left === 'number' ? err.details.attempts_left : undefined;
        return {
          kind: 'wrong-password',
          title: t('shares.problem.wrongPassword'),
          detail: left === undefined ? t('shares.problem.wrongPasswordDetail') : t('shares.problem.triesLeft', { n: left }, left),
          attemptsLeft: left,
        };
      }
      return { kind: 'password', title: t('shares.problem.password'), detail: t('shares.problem.passwordDetail') };
    case 410:
      return { kind: 'limit', title: t('shares.problem.limit'), detail: t('shares.problem.limitDetail') };
    case 403:
      return { kind: 'downloads-off', title: t('shares.problem.downloadsOff'), detail: t('shares.problem.downloadsOffDetail') };
    case 429: {
      const retryAfter = typeof err.details.retry_after === 'number' ? err.details.retry_after : undefined;
      const wrongPasswords = /wrong password/i.test(err.message);
      return {
        kind: 'rate-limited',
        title: wrongPasswords ? t('shares.problem.tooManyPasswords') : t('shares.problem.tooManyRequests'),
        detail: retryAfter ? t('shares.problem.tryAgainIn', { wait: formatWait(retryAfter) }) : t('shares.problem.waitALittle'),
        retryAfter,
      };
    }
    default:
      return { kind: 'error', title: t('shares.problem.error'), detail: err.message };
  }
}
