import { flushPromises } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope, ref } from 'vue';
import type { SearchDocument, Version } from '../src/api/types';
import { useThumbnailRefresh } from '../src/composables/useThumbnailRefresh';
import { backoffDelays, pollWithBackoff, THUMBNAIL_BACKOFF } from '../src/util/backoff';
import { searchDoc } from './api-fixtures';

const ICON = 'http://127.0.0.1/media/icons/image.svg';
const THUMB = 'http://127.0.0.1/media/versions/9/thumbnail?signature=x';

/** Moves the fake clock to `ms` after the start, letting promises settle at each step. */
async function at(ms: number, clock: { now: number }): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms - clock.now);
  clock.now = ms;
  await flushPromises();
}

describe('polling with backoff', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits 1, 2, 4, 8 s, then 8 s at a time, and no try starts past a minute', () => {
    expect(backoffDelays(THUMBNAIL_BACKOFF)).toEqual([1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000, 8000]);
    expect(backoffDelays({ firstMs: 100, maxMs: 1000, limitMs: 750 })).toEqual([100, 200, 400]);
  });

  it('checks at 1, 3, 7, 15, 23 ... 55 s and gives up after a minute', async () => {
    const clock = { now: 0 };
    const times: number[] = [];
    const poll = pollWithBackoff(async () => (times.push(Date.now() - start), false), THUMBNAIL_BACKOFF);
    const start = Date.now();
    await at(999, clock);
    expect(times).toEqual([]);
    await at(120_000, clock);
    expect(times).toEqual([1000, 3000, 7000, 15_000, 23_000, 31_000, 39_000, 47_000, 55_000]);
    await expect(poll.outcome).resolves.toBe('gave-up');
  });

  it('stops as soon as a check is done; a failing check counts as not done; stop() ends it', async () => {
    const clock = { now: 0 };
    let calls = 0;
    const poll = pollWithBackoff(async () => {
      calls += 1;
      if (calls === 1) throw new Error('offline');
      return calls === 3;
    }, THUMBNAIL_BACKOFF);
    await at(60_000, clock);
    expect(calls).toBe(3);
    await expect(poll.outcome).resolves.toBe('done');

    const stopped = pollWithBackoff(async () => false, THUMBNAIL_BACKOFF);
    stopped.stop();
    await expect(stopped.outcome).resolves.toBe('stopped');
  });
});

describe('thumbnails that appear without a reload', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const doc = (id: number, thumbnail_url: string | undefined): SearchDocument => searchDoc({ id: String(id), display_file_name: `f${id}`, file_type: 'image', modified_at: 1, thumbnail_url });
  const version = (status: Version['preview_status'], thumbnail_url: string): Version =>
    ({ id: 9, is_current: true, preview_status: status, thumbnail_url }) as Version;

  it('reads pending thumbnails with backoff and puts the ready one in place; no-preview and ready ones are left alone', async () => {
    const clock = { now: 0 };
    const statuses: Record<number, Version['preview_status'][]> = { 1: ['pending', 'pending', 'ready'], 2: ['unavailable'] };
    const api = {
      list: vi.fn(async (id: number) => {
        const status = statuses[id]!.length > 1 ? statuses[id]!.shift()! : statuses[id]![0]!;
        return [version(status, status === 'ready' ? THUMB : ICON)];
      }),
    };
    const docs = ref([doc(1, ICON), doc(2, ICON), doc(3, THUMB)]);
    const scope = effectScope();
    scope.run(() => useThumbnailRefresh(docs, api));

    await at(1000, clock);
    expect(api.list.mock.calls.map((c) => c[0])).toEqual([1, 2]);
    expect(docs.value[0]!.thumbnail_url).toBe(ICON);
    await at(3000, clock);
    expect(docs.value[0]!.thumbnail_url).toBe(ICON);
    await at(7000, clock);
    expect(docs.value[0]!.thumbnail_url).toBe(THUMB);
    expect(api.list.mock.calls.map((c) => c[0])).toEqual([1, 2, 1, 1]);
    // Nothing is waiting any more: no further reads.
    await at(60_000, clock);
    expect(api.list).toHaveBeenCalledTimes(4);

    // A new search with the same documents does not read the settled ones again.
    docs.value = [doc(2, ICON)];
    await at(70_000, clock);
    expect(api.list).toHaveBeenCalledTimes(4);
    scope.stop();
  });

  it('stops reading after a minute, and when the page is left', async () => {
    const clock = { now: 0 };
    const api = { list: vi.fn(async () => [version('pending', ICON)]) };
    const scope = effectScope();
    scope.run(() => useThumbnailRefresh(ref([doc(1, ICON)]), api));
    await at(300_000, clock);
    expect(api.list).toHaveBeenCalledTimes(9);
    scope.stop();

    const left = effectScope();
    const other = { list: vi.fn(async () => [version('pending', ICON)]) };
    left.run(() => useThumbnailRefresh(ref([doc(5, ICON)]), other));
    await at(301_500, clock);
    expect(other.list).toHaveBeenCalledTimes(1);
    left.stop();
    await at(400_000, clock);
    expect(other.list).toHaveBeenCalledTimes(1);
  });
});
