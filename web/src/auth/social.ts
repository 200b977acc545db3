import { safeRedirect } from './redirect';

const PENDING_KEY = 'dam.social.pending';
const FLASH_KEY = 'dam.signin.message';

/**
 * A message for the sign-in page, handed over in this tab's storage rather than the URL,
 * so that nobody can put words of their own on our sign-in page with a crafted link.
 */
export function setSignInMessage(text: string): void {
  sessionStorage.setItem(FLASH_KEY, text);
}

export function takeSignInMessage(): string | null {
  const text = sessionStorage.getItem(FLASH_KEY);
  sessionStorage.removeItem(FLASH_KEY);
  return text;
}

interface PendingSignIn {
  state: string;
  redirect: string;
}

/** What /social-login received from the provider (seed 2.4, 4.4). */
export interface SocialParams {
  accessToken: string | null;
  error: string | null;
  errorDescription: string | null;
  state: string | null;
}

function randomState(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Leaves for the provider's sign-in page. A random `state` goes along and is
 * kept in this tab with the page the user wanted, so /social-login can tell
 * its own sign-in from a link someone else made, and land on that page.
 */
export function startSocialSignIn(authorizeUrl: string, redirect: string, go: (url: string) => void = (u) => window.location.assign(u)): void {
  const pending: PendingSignIn = { state: randomState(), redirect: safeRedirect(redirect) };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(authorizeUrl);
  url.searchParams.set('state', pending.state);
  go(url.toString());
}

export function takePendingSignIn(): PendingSignIn | null {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  try {
    return raw ? (JSON.parse(raw) as PendingSignIn) : null;
  } catch {
    return null;
  }
}

const first = (v: unknown): string | null => {
  const value = Array.isArray(v) ? (v[0] as unknown) : v;
  return typeof value === 'string' && value !== '' ? value : null;
};

/**
 * seed 4.4 sends the token as a query parameter; Google's implicit flow puts
 * it in the fragment (#access_token=...). Both are read, the query first.
 */
export function readSocialParams(query: Record<string, unknown>, hash: string): SocialParams {
  const fragment = new URLSearchParams(hash.replace(/^#/, ''));
  const pick = (name: string) => first(query[name]) ?? first(fragment.get(name));
  return {
    accessToken: pick('access_token'),
    error: pick('error'),
    errorDescription: pick('error_description'),
    state: pick('state'),
  };
}
