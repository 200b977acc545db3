import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';
import { ApiError } from '../src/api/http';
import { imageGenerationAvailable, setImageGenerationAvailable, type ImageGenerationApi } from '../src/api/image-generation';
import type { GenerateImageRequest, ImageGeneration } from '../src/api/types';
import GenerateImageDialog from '../src/components/GenerateImageDialog.vue';
import { requestErrorText, useImageGeneration } from '../src/composables/useImageGeneration';

const BACKOFF = { firstMs: 1000, maxMs: 4000, limitMs: 20_000 };

function generation(overrides: Partial<ImageGeneration> = {}): ImageGeneration {
  return {
    id: 31,
    workspace_id: 5,
    folder_id: null,
    status: 'queued',
    prompt: 'A red fox in the snow',
    negative_prompt: null,
    size: '1024x1024',
    n: 2,
    model: 'dall-e-3',
    asset_ids: [],
    error: null,
    created_at: 1,
    updated_at: 1,
    ...overrides,
  };
}

/** A fake API whose GETs answer the given generations in turn (the last one again after that). */
function fakeApi(start: () => Promise<ImageGeneration>, reads: ImageGeneration[]) {
  const answers = [...reads];
  return {
    start: vi.fn(async (_body: GenerateImageRequest) => start()),
    get: vi.fn(async (id: number) => {
      if (id === 1) throw new ApiError('Image generation not found', 404, 'NOT_FOUND');
      return answers.length > 1 ? answers.shift()! : answers[0]!;
    }),
  } satisfies ImageGenerationApi;
}

const input = { workspaceId: 5, prompt: 'A red fox in the snow', n: 2 };

describe('whether the instance generates images', () => {
  afterEach(() => setImageGenerationAvailable(undefined));

  it('is told by one status read: IMAGE_GEN_NOT_CONFIGURED means no, a plain 404 yes; asked once', async () => {
    const off = { get: vi.fn(async () => Promise.reject(new ApiError('Image generation is not configured on this instance', 404, 'IMAGE_GEN_NOT_CONFIGURED'))) };
    await expect(imageGenerationAvailable(off)).resolves.toBe(false);
    await expect(imageGenerationAvailable(off)).resolves.toBe(false);
    expect(off.get).toHaveBeenCalledTimes(1);

    setImageGenerationAvailable(undefined);
    await expect(imageGenerationAvailable({ get: async () => Promise.reject(new ApiError('Image generation not found', 404, 'NOT_FOUND')) })).resolves.toBe(true);
    setImageGenerationAvailable(undefined);
    await expect(imageGenerationAvailable({ get: async () => Promise.reject(new ApiError('Route GET /generate-image/1 not found', 404, 'NOT_FOUND')) })).resolves.toBe(false);
  });

  it('asks again after a network failure', async () => {
    const flaky = { get: vi.fn().mockRejectedValueOnce(new ApiError('The server could not be reached.', 0)).mockResolvedValueOnce(generation()) };
    await expect(imageGenerationAvailable(flaky)).resolves.toBe(false);
    await expect(imageGenerationAvailable(flaky)).resolves.toBe(true);
    expect(flaky.get).toHaveBeenCalledTimes(2);
  });
});

describe('useImageGeneration', () => {
  beforeEach(() => {
    setImageGenerationAvailable(undefined);
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    setImageGenerationAvailable(undefined);
  });

  it('polls with backoff, tells each new asset, and ends when the generation succeeded', async () => {
    const api = fakeApi(async () => generation(), [
      generation({ status: 'running' }),
      generation({ status: 'running', asset_ids: [101] }),
      generation({ status: 'succeeded', asset_ids: [101, 102] }),
    ]);
    const seen: ImageGeneration[] = [];
    const scope = effectScope();
    const job = scope.run(() => useImageGeneration((g) => seen.push(g), { api, backoff: BACKOFF }))!;
    await flushPromises();
    expect(job.available.value).toBe(true);

    const done = job.submit(input);
    await flushPromises();
    expect(api.start).toHaveBeenCalledWith(input);
    expect(job.state.phase).toBe('running');
    // Read after 1 s, then 2 s more, then 4 s more.
    await vi.advanceTimersByTimeAsync(1000);
    expect(api.get).toHaveBeenCalledTimes(2);
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(seen.map((g) => g.asset_ids)).toEqual([[101]]);
    await vi.advanceTimersByTimeAsync(4000);
    await done;
    expect(job.state.phase).toBe('succeeded');
    expect(seen.map((g) => g.status)).toEqual(['running', 'succeeded']);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.get).toHaveBeenCalledTimes(4);
    scope.stop();
  });

  it("shows the provider's reason when the generation failed", async () => {
    const reason = 'Your request was rejected as a result of our safety system. (content_policy_violation)';
    const api = fakeApi(async () => generation(), [generation({ status: 'failed', error: reason })]);
    const seen: ImageGeneration[] = [];
    const scope = effectScope();
    const job = scope.run(() => useImageGeneration((g) => seen.push(g), { api, backoff: BACKOFF }))!;
    const done = job.submit(input);
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    expect(job.state).toMatchObject({ phase: 'failed', error: reason });
    expect(seen).toHaveLength(1);
    scope.stop();
  });

  it('says until when the daily limit holds, and stops offering generation when the server has none', async () => {
    const limit = new ApiError('This workspace may ask for 10 generated images per day (UTC) and has 0 left today; 2 were asked for', 429, 'IMAGE_GEN_DAILY_LIMIT', undefined, {
      limit: 10,
      used: 10,
      resets_at: Date.UTC(2030, 0, 2) / 1000,
    });
    expect(requestErrorText(limit)).toMatch(/^This workspace may ask for 10 generated images per day \(UTC\) and has 0 left today; 2 were asked for\. More can be asked for from .+\.$/);

    const api = fakeApi(() => Promise.reject(limit), [generation()]);
    const scope = effectScope();
    const job = scope.run(() => useImageGeneration(() => undefined, { api, backoff: BACKOFF }))!;
    await job.submit(input);
    expect(job.state.phase).toBe('idle');
    expect(job.state.error).toBe(requestErrorText(limit));

    api.start.mockRejectedValueOnce(new ApiError('Image generation is not configured on this instance', 404, 'IMAGE_GEN_NOT_CONFIGURED'));
    await job.submit(input);
    expect(job.available.value).toBe(false);
    expect(job.state.error).toBe('Image generation is not set up on this server.');
    scope.stop();
  });

  it('says the images come later when the reads stop first', async () => {
    const api = fakeApi(async () => generation(), [generation({ status: 'running' })]);
    const scope = effectScope();
    const job = scope.run(() => useImageGeneration(() => undefined, { api, backoff: BACKOFF }))!;
    const done = job.submit(input);
    await vi.advanceTimersByTimeAsync(30_000);
    await done;
    expect(job.state.phase).toBe('slow');
    scope.stop();
  });
});

describe('GenerateImageDialog', () => {
  beforeEach(() => setImageGenerationAvailable(true));
  afterEach(() => setImageGenerationAvailable(undefined));

  it('sends the prompt, size, count and what to leave out into the current folder, shows progress, and closes when done', async () => {
    vi.useFakeTimers();
    try {
      const api = fakeApi(async () => generation({ folder_id: 9 }), [generation({ status: 'running', folder_id: 9, asset_ids: [101] }), generation({ status: 'succeeded', folder_id: 9, asset_ids: [101, 102] })]);
      const scope = effectScope();
      const job = scope.run(() => useImageGeneration(() => undefined, { api, backoff: BACKOFF }))!;
      const wrapper = mount(GenerateImageDialog, { props: { job, workspaceId: 5, folderId: 9, place: '“Foxes”' }, attachTo: document.body });
      expect(wrapper.text()).toContain('Into “Foxes”.');
      expect(wrapper.get('button[type="submit"]').attributes('disabled')).toBeDefined();
      await wrapper.get('#gen-prompt').setValue('A red fox in the snow');
      await wrapper.get('#gen-negative').setValue('text');
      await wrapper.get('#gen-size').setValue('1792x1024');
      await wrapper.get('#gen-count').setValue('2');
      await wrapper.get('form').trigger('submit');
      await flushPromises();
      expect(api.start).toHaveBeenCalledWith({ workspaceId: 5, prompt: 'A red fox in the snow', size: '1792x1024', n: 2, negative_prompt: 'text', folder_id: 9 });
      expect(wrapper.get('[role="status"]').text()).toBe('Waiting for the image service…');
      await vi.advanceTimersByTimeAsync(1000);
      expect(wrapper.get('[role="status"]').text()).toBe('1 of 2 images ready…');
      expect(wrapper.get('[role="progressbar"]').attributes('aria-valuenow')).toBe('50');
      expect(wrapper.emitted('close')).toBeUndefined();
      await vi.advanceTimersByTimeAsync(2000);
      expect(wrapper.emitted('close')).toHaveLength(1);
      wrapper.unmount();
      scope.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows a failure with its reason and offers the prompt again', async () => {
    const api = fakeApi(async () => generation({ status: 'failed', error: 'Refused (content_policy_violation)', prompt: 'forbidden fox', n: 1 }), [generation()]);
    const scope = effectScope();
    const job = scope.run(() => useImageGeneration(() => undefined, { api, backoff: BACKOFF }))!;
    const wrapper = mount(GenerateImageDialog, { props: { job, workspaceId: 5, folderId: null, place: 'the top level' }, attachTo: document.body });
    await wrapper.get('#gen-prompt').setValue('forbidden fox');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toBe('The images could not be generated. Refused (content_policy_violation)');
    await wrapper.findAll('button').find((b) => b.text() === 'Change the prompt')!.trigger('click');
    expect((wrapper.get('#gen-prompt').element as HTMLTextAreaElement).value).toBe('forbidden fox');
    expect(job.state.phase).toBe('idle');
    wrapper.unmount();
    scope.stop();
  });
});
