import { ApiError } from '../api/http';
import en from './messages/en';
import { currentLocale, translate } from './index';

type KnownCode = keyof typeof en.errors.codes;

function isKnownCode(code: string | undefined): code is KnownCode {
  return code !== undefined && Object.hasOwn(en.errors.codes, code);
}

/**
 * Faults of the machine, not of the request (issue #37): the server's message may carry a technical detail, and what
 * the user needs is plain (nothing was saved, it passes, try again): our sentence, in English too.
 */
const ALWAYS_OURS = new Set<string>(['INSUFFICIENT_STORAGE', 'DATABASE_UNAVAILABLE', 'STORAGE_UNAVAILABLE']);

/**
 * What to tell the user about an error (issue #29). Server messages are English, with a stable `code`
 * (src/errors.ts): in another language a code of the errors area (messages/<locale>/errors.ts) is shown as its
 * sentence there, and a network failure (status 0) as errors.network; any other code, and English (where the
 * server's own sentence is often more precise: it may name the field or the limit), shows the error's message.
 */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) {
    if (ALWAYS_OURS.has(err.code ?? '')) return translate(`errors.codes.${err.code as KnownCode}`);
    if (currentLocale() === 'en') return err.message;
    if (err.isNetwork) return translate('errors.network');
    if (isKnownCode(err.code)) return translate(`errors.codes.${err.code}`);
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
