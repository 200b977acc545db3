import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';
import type { ConversionsApi, Requested } from '../src/api/conversions';
import { ApiError } from '../src/api/http';
import type { Asset, Conversion, ConvertImageRequest, ConvertVideoRequest } from '../src/api/types';
import ConvertDialog from '../src/components/ConvertDialog.vue';
import { useConversion } from '../src/composables/useConversion';
import {
  convertKindOf,
  defaultForm,
  describeParams,
  fieldOf,
  formatsFor,
  formOf,
  imageRequest,
  statusText,
  videoRequest,
  type ConvertForm,
} from '../src/convert/options';
import { NO_EMBEDDED } from './api-fixtures';

const BACKOFF = { firstMs: 1000, maxMs: 2000, limitMs: 20_000 };

function asset(overrides: Partial<Asset> = {}): Asset {
  return {
    id: 7,
    workspace_id: 5,
    folder_id: null,
    display_file_name: 'Harbour.png',
    file_name: 'Harbour.png',
    file_type: 'image',
    mime_type: 'image/png',
    file_size: 1000,
    width: 1600,
    height: 1200,
    orientation: 'landscape',
    tags: [],
    visibility: 0,
    metadata: {},
    created_by: 'Ann',
    created_at: 1,
    modified_at: 1,
    page_count: null,
    sha256: null,
    unreadable: false,
    unreadable_reason: null,
    custom_fields: {},
    missing_fields: [],
    ...NO_EMBEDDED,
    ...overrides,
  };
}

function conversion(overrides: Partial<Conversion> = {}): Conversion {
  return {
    id: 41,
    kind: 'image',
    workspace_id: 5,
    asset_id: 7,
    source_version_id: 70,
    params: { format: 'webp', width: 800, height: null, fit: 'inside', enlarge: false, quality: 80, strip_metadata: false, target: 'new_asset' },
    status: 'queued',
    progress: 0,
    result_asset_id: null,
    result_version_id: null,
    error: null,
    requested_by: { id: 1, name: 'Ann' },
    created_at: Math.floor(Date.now() / 1000) - 120,
    started_at: null,
    finished_at: null,
    ...overrides,
  };
}

/** A fake API: POSTs answer `start`, GETs the given conversions in turn (the last one again after that). */
function fakeApi(start: () => Promise<Requested>, reads: Conversion[]) {
  const answers = [...reads];
  return {
    image: vi.fn(async (_body: ConvertImageRequest) => start()),
    video: vi.fn(async (_body: ConvertVideoRequest) => start()),
    get: vi.fn(async (_id: number) => (answers.length > 1 ? answers.shift()! : answers[0]!)),
    cancel: vi.fn(async (id: number) => conversion({ id, status: 'canceled', finished_at: 2 })),
    list: vi.fn(async () => ({ items: [], next_before: null })),
  } satisfies ConversionsApi;
}

const form = (overrides: Partial<ConvertForm> = {}): ConvertForm => ({ ...defaultForm(asset()), ...overrides });

describe('conversion options', () => {
  it('offers image formats for images (not SVG), every video format for videos, sound formats for audio, nothing for documents', () => {
    expect(convertKindOf(asset())).toBe('image');
    expect(convertKindOf(asset({ mime_type: 'image/svg+xml' }))).toBeNull();
    expect(convertKindOf(asset({ file_type: 'document', mime_type: 'application/pdf' }))).toBeNull();
    expect(formatsFor(asset()).map((f) => f.value)).toEqual(['jpeg', 'png', 'webp', 'avif', 'tiff', 'gif']);
    expect(formatsFor(asset({ file_type: 'video', mime_type: 'video/quicktime' })).map((f) => f.value)).toEqual(['mp4', 'webm', 'gif', 'mp3', 'm4a']);
    expect(formatsFor(asset({ file_type: 'audio', mime_type: 'audio/wav' })).map((f) => f.value)).toEqual(['mp3', 'm4a']);
    expect(defaultForm(asset()).format).toBe('webp');
    expect(defaultForm(asset({ file_type: 'video', mime_type: 'video/mp4' })).format).toBe('mp4');
    expect(defaultForm(asset({ file_type: 'audio', mime_type: 'audio/wav' })).format).toBe('m4a');
  });

  it("sends only what differs from the server's defaults", () => {
    expect(imageRequest(7, form())).toEqual({ assetId: 7, format: 'webp' });
    // fit only with both edges; the default quality is not sent; an emptied field ('') is no value.
    expect(imageRequest(7, form({ width: 800, fit: 'cover', quality: 80 }))).toEqual({ assetId: 7, format: 'webp', width: 800 });
    expect(imageRequest(7, form({ width: 800, height: 600, fit: 'cover', quality: 60, strip_metadata: true, target: 'new_version' }))).toEqual({
      assetId: 7,
      format: 'webp',
      width: 800,
      height: 600,
      fit: 'cover',
      quality: 60,
      strip_metadata: true,
      target: 'new_version',
    });
    expect(imageRequest(7, form({ format: 'png', quality: 60, width: '' as unknown as number }))).toEqual({ assetId: 7, format: 'png' });
    expect(imageRequest(7, form({ format: 'tiff', quality: 90 }))).toEqual({ assetId: 7, format: 'tiff', quality: 90 });
    // Sound formats take no height.
    expect(videoRequest(7, form({ format: 'mp4', max_height: 720 }))).toEqual({ assetId: 7, format: 'mp4', max_height: 720 });
    expect(videoRequest(7, form({ format: 'mp3', max_height: 720, target: 'new_version' }))).toEqual({ assetId: 7, format: 'mp3', target: 'new_version' });
  });

  it('reads a conversion back into the form (defaults as empty fields), and in words', () => {
    const c = conversion({ params: { format: 'gif', max_height: 480, video_bitrate: null, audio: false, start: 0, duration: 30, target: 'new_version' }, kind: 'video' });
    expect(formOf(c)).toMatchObject({ format: 'gif', max_height: null, target: 'new_version' });
    expect(formOf(conversion())).toMatchObject({ format: 'webp', width: 800, height: null, quality: null });
    expect(describeParams(conversion().params)).toBe('WebP, 800 px wide, quality 80');
    expect(describeParams({ format: 'mp4', max_height: 720, audio: true, target: 'new_asset' })).toBe('MP4, at most 720 px high');
    expect(statusText(conversion({ status: 'running', kind: 'video', progress: 42 }))).toBe('Converting… 42%');
    expect(statusText(conversion({ status: 'queued', error: 'Reading or storing the file failed' }))).toBe('Waiting to try again: Reading or storing the file failed');
    expect(statusText(conversion({ status: 'succeeded' }))).toBe('Done: the result is a new asset next to this one.');
    expect(statusText(conversion({ status: 'failed', error: 'The file could not be decoded' }))).toBe('The file could not be decoded');
  });

  it('finds the field an API refusal names', () => {
    expect(fieldOf(new ApiError('body.width: 16000 x 16000 is more than this instance converts', 400, 'VALIDATION_ERROR', 'width'))).toBe('width');
    expect(fieldOf(new ApiError('body.quality must be <= 100', 400, 'VALIDATION_ERROR', 'quality'))).toBe('quality');
    expect(fieldOf(new ApiError('SVG images are not rasterised on the server', 422, 'CONVERSION_UNSUPPORTED'))).toBe('format');
    expect(fieldOf(new ApiError('body.assetId must be integer', 400, 'VALIDATION_ERROR', 'assetId'))).toBeNull();
    expect(fieldOf(new Error('boom'))).toBeNull();
  });
});

describe('useConversion', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('follows a new conversion every second, then every two, until it succeeded, and tells once', async () => {
    const api = fakeApi(async () => ({ conversion: conversion(), created: true }), [
      conversion({ status: 'running', kind: 'video', progress: 10 }),
      conversion({ status: 'running', kind: 'video', progress: 60 }),
      conversion({ status: 'succeeded', progress: 100, result_asset_id: 8, result_version_id: 80 }),
    ]);
    const finished: Conversion[] = [];
    const scope = effectScope();
    const job = scope.run(() => useConversion((c) => finished.push(c), { api, backoff: BACKOFF }))!;
    const done = job.submit({ kind: 'image', body: { assetId: 7, format: 'webp', width: 800 } });
    await flushPromises();
    expect(api.image).toHaveBeenCalledWith({ assetId: 7, format: 'webp', width: 800 });
    expect(job.state).toMatchObject({ phase: 'running', deduplicated: false });
    await vi.advanceTimersByTimeAsync(1000);
    expect(job.state.conversion?.progress).toBe(10);
    await vi.advanceTimersByTimeAsync(2000);
    expect(job.state.conversion?.progress).toBe(60);
    await vi.advanceTimersByTimeAsync(2000);
    await done;
    expect(job.state.phase).toBe('succeeded');
    expect(finished.map((c) => c.result_asset_id)).toEqual([8]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(api.get).toHaveBeenCalledTimes(3);
    scope.stop();
  });

  it('shows the existing conversion when the server answers 200 (asked before), already done or not', async () => {
    const api = fakeApi(async () => ({ conversion: conversion({ status: 'succeeded', progress: 100, result_asset_id: 8 }), created: false }), []);
    const finished: Conversion[] = [];
    const job = useConversion((c) => finished.push(c), { api, backoff: BACKOFF });
    await job.submit({ kind: 'image', body: { assetId: 7, format: 'webp' } });
    expect(job.state).toMatchObject({ phase: 'succeeded', deduplicated: true });
    expect(finished).toHaveLength(1);
    expect(api.get).not.toHaveBeenCalled();
  });

  it("keeps the API's words and the field it names when the request is refused", async () => {
    const refusal = new ApiError('body.width: 16000 x 16000 is more than this instance converts (100000000 pixels)', 400, 'VALIDATION_ERROR', 'width');
    const api = fakeApi(() => Promise.reject(refusal), []);
    const job = useConversion(() => undefined, { api, backoff: BACKOFF });
    await job.submit({ kind: 'image', body: { assetId: 7, format: 'webp', width: 16000, height: 16000 } });
    expect(job.state).toMatchObject({ phase: 'idle', error: refusal.message, field: 'width' });
  });

  it('cancels a running conversion; one that finished meanwhile (409) shows how it ended', async () => {
    const api = fakeApi(async () => ({ conversion: conversion({ status: 'running', kind: 'video', progress: 5 }), created: true }), [conversion({ status: 'running', kind: 'video' })]);
    const finished: Conversion[] = [];
    const scope = effectScope();
    const job = scope.run(() => useConversion((c) => finished.push(c), { api, backoff: BACKOFF }))!;
    void job.submit({ kind: 'video', body: { assetId: 7, format: 'mp4' } });
    await flushPromises();
    await job.cancel();
    expect(api.cancel).toHaveBeenCalledWith(41);
    expect(job.state.phase).toBe('canceled');
    expect(finished.map((c) => c.status)).toEqual(['canceled']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(api.get).not.toHaveBeenCalled();

    api.cancel.mockRejectedValueOnce(new ApiError('Conversion 41 has already succeeded and cannot be canceled', 409, 'CONFLICT'));
    api.get.mockResolvedValue(conversion({ status: 'succeeded', result_asset_id: 9 }));
    void job.submit({ kind: 'video', body: { assetId: 7, format: 'mp4' } });
    await flushPromises();
    await job.cancel();
    expect(job.state.phase).toBe('succeeded');
    expect(job.state.conversion?.result_asset_id).toBe(9);
    scope.stop();
  });

  it('resumes a conversion found running, and says when the reads stop first', async () => {
    const api = fakeApi(async () => ({ conversion: conversion(), created: true }), [conversion({ status: 'running' })]);
    const scope = effectScope();
    const job = scope.run(() => useConversion(() => undefined, { api, backoff: BACKOFF }))!;
    const done = job.resume(conversion({ status: 'running' }));
    expect(job.state.phase).toBe('running');
    await vi.advanceTimersByTimeAsync(30_000);
    await done;
    expect(job.state.phase).toBe('slow');
    scope.stop();
  });
});

describe('ConvertDialog', () => {
  it('asks for a resized WebP, shows the progress with Cancel, then offers the new asset', async () => {
    vi.useFakeTimers();
    try {
      const api = fakeApi(async () => ({ conversion: conversion(), created: true }), [
        conversion({ status: 'running' }),
        conversion({ status: 'succeeded', progress: 100, result_asset_id: 8, result_version_id: 80 }),
      ]);
      const scope = effectScope();
      const job = scope.run(() => useConversion(() => undefined, { api, backoff: BACKOFF }))!;
      const wrapper = mount(ConvertDialog, { props: { job, asset: asset() }, attachTo: document.body });
      expect(wrapper.findAll('#convert-format option').map((o) => o.attributes('value'))).toEqual(['jpeg', 'png', 'webp', 'avif', 'tiff', 'gif']);
      expect(wrapper.find('#convert-fit').exists()).toBe(false);
      await wrapper.get('#convert-width').setValue('800');
      await wrapper.get('#convert-height-px').setValue('600');
      await wrapper.get('#convert-fit').setValue('cover');
      await wrapper.get('#convert-quality').setValue('70');
      await wrapper.get('form').trigger('submit');
      await flushPromises();
      expect(api.image).toHaveBeenCalledWith({ assetId: 7, format: 'webp', width: 800, height: 600, fit: 'cover', quality: 70 });
      expect(wrapper.get('[role="status"]').text()).toBe('Waiting for a free worker…');
      expect(wrapper.findAll('button').some((b) => b.text() === 'Cancel conversion')).toBe(true);
      await vi.advanceTimersByTimeAsync(1000);
      expect(wrapper.get('[role="status"]').text()).toBe('Converting…');
      await vi.advanceTimersByTimeAsync(2000);
      expect(wrapper.get('[role="progressbar"]').attributes('aria-valuenow')).toBe('100');
      expect(wrapper.findAll('button').some((b) => b.text() === 'Cancel conversion')).toBe(false);
      await wrapper.findAll('button').find((b) => b.text() === 'Open the new asset')!.trigger('click');
      expect(wrapper.emitted('open')).toEqual([[8]]);
      wrapper.unmount();
      scope.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('offers the output height for video but not for sound, and marks the field a refusal names', async () => {
    const refusal = new ApiError('body.max_height: max_height applies to video formats; mp3 is sound only', 400, 'VALIDATION_ERROR', 'max_height');
    const api = fakeApi(() => Promise.reject(refusal), []);
    const job = useConversion(() => undefined, { api, backoff: BACKOFF });
    const video = asset({ file_type: 'video', mime_type: 'video/quicktime', height: 1080, display_file_name: 'Clip.mov' });
    const wrapper = mount(ConvertDialog, { props: { job, asset: video }, attachTo: document.body });
    // Only heights below the source's are offered (the server never enlarges).
    expect(wrapper.findAll('#convert-height option').map((o) => o.text())).toEqual(['As the source (1080 px)', '720 px', '480 px', '360 px', '240 px']);
    await wrapper.get('#convert-height').setValue('720');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(api.video).toHaveBeenCalledWith({ assetId: 7, format: 'mp4', max_height: 720 });
    expect(wrapper.get('[role="alert"]').text()).toBe(refusal.message);
    expect(wrapper.get('#convert-height').attributes('aria-invalid')).toBe('true');
    await wrapper.get('#convert-format').setValue('mp3');
    expect(wrapper.find('#convert-height').exists()).toBe(false);
    wrapper.unmount();
  });

  it('says so when the same conversion had been asked for before', async () => {
    const api = fakeApi(async () => ({ conversion: conversion({ status: 'running', requested_by: { id: 2, name: 'Bea' } }), created: false }), [conversion({ status: 'running' })]);
    const scope = effectScope();
    const job = scope.run(() => useConversion(() => undefined, { api, backoff: BACKOFF }))!;
    const wrapper = mount(ConvertDialog, { props: { job, asset: asset() }, attachTo: document.body });
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('.alert-info').text()).toMatch(/^The same conversion was asked for .+ by Bea: this is it\.$/);
    wrapper.unmount();
    scope.stop();
  });
});
