import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';
import { ApiError } from '../src/api/http';
import { withShareToken } from '../src/api/public-share';
import type { PublicShare, ShareItem } from '../src/api/shares';
import { formatWait, shareProblem, ShareTokenStore } from '../src/shares/public';
import { usePublicShare, type PublicShareDeps } from '../src/shares/usePublicShare';

const KEY = 'AbCdEfGhIjKlMnOpQrStUvWx';

function memoryStorage() {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
  };
}

function item(id: number, overrides: Partial<ShareItem> = {}): ShareItem {
  return {
    id,
    display_file_name: `file-${id}.jpg`,
    file_type: 'image',
    mime_type: 'image/jpeg',
    file_size: 1000,
    width: 10,
    height: 10,
    version: 'v1',
    folder_path: [],
    thumbnail_url: `/media/versions/${id}/thumbnail?sig=x`,
    preview_url: null,
    video_url: null,
    download_url: `https://dam.example/shared/public/${KEY}/assets/${id}/download`,
    ...overrides,
  };
}

function share(overrides: Partial<PublicShare> = {}): PublicShare {
  return {
    name: 'Press kit',
    description: null,
    target: 'folder',
    expires_at: null,
    allow_download: true,
    downloads_left: 2,
    zip_url: `https://dam.example/shared/public/${KEY}/zip`,
    items: [item(1), item(2)],
    page: 1,
    per_page: 48,
    total: 2,
    ...overrides,
  };
}

const required = () => new ApiError('This shared link is protected by a password', 401, 'SHARE_PASSWORD_REQUIRED');

describe('the share-access token store', () => {
  it('keeps one token per link until it expires, in the given storage', () => {
    let clock = 1_000_000;
    const storage = memoryStorage();
    const tokens = new ShareTokenStore(storage, () => clock);
    expect(tokens.get(KEY)).toBeNull();
    tokens.save(KEY, 'tok', 1_000 + 60);
    expect(tokens.get(KEY)).toBe('tok');
    expect(tokens.get('another-key')).toBeNull();
    clock = (1_000 + 60) * 1000;
    expect(tokens.get(KEY)).toBeNull();
    expect(storage.data.size).toBe(0);
    storage.setItem(`dam.share-token.${KEY}`, '{not json');
    expect(tokens.get(KEY)).toBeNull();
  });

  it('works without storage (the token lives as long as the page would)', () => {
    const tokens = new ShareTokenStore(null);
    tokens.save(KEY, 'tok', 9e9);
    expect(tokens.get(KEY)).toBeNull();
  });
});

describe('refusals in a visitor’s words', () => {
  it('tells each status apart, by status alone when there is no body (HEAD)', () => {
    expect(shareProblem(new ApiError('Shared link not found', 404, 'NOT_FOUND')).kind).toBe('gone');
    expect(shareProblem(new ApiError('404 Not Found', 404)).title).toBe('This link is not available');
    expect(shareProblem(required()).kind).toBe('password');
    expect(shareProblem(new ApiError('410 Gone', 410)).kind).toBe('limit');
    expect(shareProblem(new ApiError('403 Forbidden', 403)).kind).toBe('downloads-off');
    expect(shareProblem(new ApiError('The server could not be reached.', 0)).kind).toBe('network');
    expect(shareProblem(new ApiError('Boom', 500)).detail).toBe('Boom');
  });

  it('counts the tries left after a wrong password, and the wait after too many', () => {
    const wrong = shareProblem(new ApiError('wrong', 401, 'SHARE_PASSWORD_WRONG', undefined, { attempts_left: 1 }));
    expect(wrong).toMatchObject({ kind: 'wrong-password', attemptsLeft: 1, detail: '1 more try before a pause.' });
    expect(shareProblem(new ApiError('wrong', 401, 'SHARE_PASSWORD_WRONG', undefined, { attempts_left: 0 })).detail).toBe('That was the last try before a pause.');
    const paused = shareProblem(new ApiError('Too many wrong passwords for this link from this address', 429, 'RATE_LIMITED', undefined, { retry_after: 840 }));
    expect(paused).toMatchObject({ kind: 'rate-limited', title: 'Too many wrong passwords', detail: 'Try again in 14 minutes.', retryAfter: 840 });
    expect(shareProblem(new ApiError('Too many shared-link requests from this address', 429, 'RATE_LIMITED')).title).toBe('Too many requests');
    expect(formatWait(1)).toBe('1 second');
    expect(formatWait(59)).toBe('59 seconds');
    expect(formatWait(61)).toBe('2 minutes');
    expect(formatWait(60)).toBe('1 minute');
  });

  it('adds the token to download URLs as st', () => {
    expect(withShareToken('/shared/public/k/zip', null)).toBe('/shared/public/k/zip');
    expect(withShareToken(`${window.location.origin}/shared/public/k/zip`, 'a.b.c')).toBe('/shared/public/k/zip?st=a.b.c');
    expect(withShareToken('https://dam.example/shared/public/k/zip', 'a.b.c')).toBe('https://dam.example/shared/public/k/zip?st=a.b.c');
  });
});

describe('the public page’s state', () => {
  let scope: ReturnType<typeof effectScope>;
  beforeEach(() => {
    scope = effectScope();
  });
  afterEach(() => {
    scope.stop();
    vi.useRealTimers();
  });

  type Api = PublicShareDeps['api'];
  function setUp(overrides: { view?: Api['view'] } = {}, clock = () => Date.now()) {
    const storage = memoryStorage();
    const tokens = new ShareTokenStore(storage, clock);
    const deps = {
      api: {
        view: vi.fn<Api['view']>(overrides.view ?? (async () => share())),
        unlock: vi.fn<Api['unlock']>(async () => ({ token: 'tok', expires_at: 9e9 })),
        check: vi.fn<Api['check']>(async () => undefined),
      },
      tokens,
      save: vi.fn(),
      now: clock,
    };
    const state = scope.run(() => usePublicShare(() => KEY, deps))!;
    return { state, deps, storage };
  }

  it('asks for the password, then reads the items with the token it was given and keeps it for the tab', async () => {
    const view = vi.fn(async (_key: string, token: string | null) => {
      if (token !== 'tok') throw required();
      return share();
    });
    const { state, deps, storage } = setUp({ view });
    await state.load();
    expect(state.phase.value).toBe('password');
    expect(state.unlockProblem.value).toBeNull();

    deps.api.unlock.mockRejectedValueOnce(new ApiError('wrong', 401, 'SHARE_PASSWORD_WRONG', undefined, { attempts_left: 9 }));
    await state.unlock('nope');
    expect(state.phase.value).toBe('password');
    expect(state.unlockProblem.value?.detail).toBe('9 more tries before a pause.');

    await state.unlock('right');
    expect(deps.api.unlock).toHaveBeenLastCalledWith(KEY, 'right');
    expect(state.phase.value).toBe('ready');
    expect(state.share.value?.items).toHaveLength(2);
    expect(view).toHaveBeenLastCalledWith(KEY, 'tok', 1, 48);
    expect(JSON.parse(storage.data.get(`dam.share-token.${KEY}`)!)).toEqual({ token: 'tok', expires_at: 9e9 });
  });

  it('holds the prompt while the server asks to wait, counting down', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { state, deps } = setUp({ view: vi.fn(async () => Promise.reject(required())) }, () => Date.now());
    await state.load();
    deps.api.unlock.mockRejectedValueOnce(new ApiError('Too many wrong passwords', 429, 'RATE_LIMITED', undefined, { retry_after: 3 }));
    await state.unlock('x');
    expect(state.unlockProblem.value?.kind).toBe('rate-limited');
    expect(state.waitLeft()).toBe(3);
    await state.unlock('y');
    expect(deps.api.unlock).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(state.waitLeft()).toBe(2);
    vi.advanceTimersByTime(2000);
    expect(state.waitLeft()).toBe(0);
    await state.unlock('z');
    expect(deps.api.unlock).toHaveBeenCalledTimes(2);
  });

  it('says an unknown, expired or revoked link is not available', async () => {
    const { state } = setUp({ view: vi.fn(async () => Promise.reject(new ApiError('Shared link not found', 404, 'NOT_FOUND'))) });
    await state.load();
    expect(state.phase.value).toBe('problem');
    expect(state.problem.value?.kind).toBe('gone');
  });

  it('checks a download first, then hands the browser the URL with the token, and counts it down', async () => {
    const { state, deps } = setUp({});
    deps.tokens.save(KEY, 'tok', 9e9);
    await state.load();
    await state.download(state.share.value!.items[0]!);
    expect(deps.api.check).toHaveBeenCalledWith(`https://dam.example/shared/public/${KEY}/assets/1/download`, 'tok');
    expect(deps.save).toHaveBeenCalledWith(`https://dam.example/shared/public/${KEY}/assets/1/download?st=tok`);
    expect(state.share.value?.downloads_left).toBe(1);
    await state.download('all');
    expect(deps.save).toHaveBeenLastCalledWith(`https://dam.example/shared/public/${KEY}/zip?st=tok`);
    expect(state.share.value?.downloads_left).toBe(0);
  });

  it('tells a download refused: the limit reached, downloads off, the access ended, the link gone', async () => {
    const { state, deps } = setUp({});
    await state.load();
    deps.api.check.mockRejectedValueOnce(new ApiError('410 Gone', 410));
    await state.download(state.share.value!.items[0]!);
    expect(deps.save).not.toHaveBeenCalled();
    expect(state.downloadProblem.value?.kind).toBe('limit');
    expect(state.share.value?.downloads_left).toBe(0);

    deps.api.check.mockRejectedValueOnce(new ApiError('403 Forbidden', 403));
    await state.download('all');
    expect(state.share.value?.allow_download).toBe(false);
    expect(state.share.value?.zip_url).toBeNull();
    expect(state.share.value?.items.every((i) => i.download_url === null)).toBe(true);

    await state.load();
    deps.api.check.mockRejectedValueOnce(required());
    await state.download(state.share.value!.items[1]!);
    expect(state.phase.value).toBe('password');
    expect(state.unlockProblem.value?.detail).toContain('Enter the password again');

    await state.load();
    deps.api.check.mockRejectedValueOnce(new ApiError('404 Not Found', 404));
    await state.download(state.share.value!.items[1]!);
    expect(state.phase.value).toBe('problem');
    expect(state.problem.value?.kind).toBe('gone');
  });
});
