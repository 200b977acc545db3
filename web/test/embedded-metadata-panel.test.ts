import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { catalogApi } from '../src/api/catalog';
import { ApiError } from '../src/api/http';
import type { AssetDetail } from '../src/api/types';
import EmbeddedMetadataPanel from '../src/components/EmbeddedMetadataPanel.vue';
import { cameraName, editPatch, exposureSummary, exposureTime, formatDuration, place, recordedZone, takenAtText } from '../src/metadata/embedded';

describe('embedded metadata in words (issue #12)', () => {
  it('names the camera once', () => {
    expect(cameraName('Canon', 'Canon EOS R5')).toBe('Canon EOS R5');
    expect(cameraName('NIKON CORPORATION', 'NIKON D750')).toBe('NIKON D750');
    expect(cameraName('FUJIFILM', 'X100V')).toBe('FUJIFILM X100V');
    expect(cameraName(null, 'X100V')).toBe('X100V');
    expect(cameraName('Apple', null)).toBe('Apple');
    expect(cameraName(null, null)).toBeNull();
  });

  it('sums up the exposure with the parts the file has', () => {
    expect(exposureSummary({ exposure: '1/250', aperture: 2.8, iso: 200, focal_length: 35 })).toBe('1/250 s · f/2.8 · ISO 200 · 35 mm');
    expect(exposureSummary({ exposure: null, aperture: 4.0, iso: null, focal_length: 4.25 })).toBe('f/4 · 4.3 mm');
    expect(exposureSummary({ exposure: null, aperture: null, iso: null, focal_length: null })).toBeNull();
    expect(exposureTime('0.5')).toBe('0.5 s');
    expect(exposureTime('30')).toBe('30 s');
    expect(exposureTime('Bulb')).toBe('Bulb');
  });

  it('gives durations as seconds, then minutes and hours', () => {
    expect(formatDuration(4.24)).toBe('4.2 s');
    expect(formatDuration(125)).toBe('2:05');
    expect(formatDuration(3725.4)).toBe('1:02:05');
    expect(formatDuration(null)).toBeNull();
  });

  it('places coordinates by hemisphere, with a link to the spot on OpenStreetMap', () => {
    expect(place(48.858370123, 2.294481)).toEqual({
      text: '48.85837° N, 2.29448° E',
      href: 'https://www.openstreetmap.org/?mlat=48.85837&mlon=2.29448#map=16/48.85837/2.29448',
    });
    expect(place(-33.8568, -151.2153)!.text).toBe('33.8568° S, 151.2153° W');
    expect(place(null, 2)).toBeNull();
  });

  it('shows the date taken on the clock the file records', () => {
    // 2023-06-01 08:00:00 UTC
    const t = Date.UTC(2023, 5, 1, 8, 0) / 1000;
    // An offset recorded beside the EXIF date: that local time, named.
    const withOffset = { 'EXIF:DateTimeOriginal': '2023:06:01 10:00:00', 'EXIF:OffsetTimeOriginal': '+02:00' };
    expect(recordedZone(withOffset)).toBe(120);
    expect(takenAtText(t, withOffset, 'en-GB')).toBe('1 Jun 2023, 10:00 (UTC+02:00)');
    // An XMP date carries its own offset.
    expect(takenAtText(t, { 'XMP:DateTimeOriginal': '2023:06:01 03:00:00-05:00' }, 'en-GB')).toBe('1 Jun 2023, 03:00 (UTC−05:00)');
    // No offset anywhere: the camera's clock as written (the server stores it as UTC), no zone named.
    expect(recordedZone({ 'EXIF:DateTimeOriginal': '2023:06:01 08:00:00' })).toBeNull();
    expect(takenAtText(t, { 'EXIF:DateTimeOriginal': '2023:06:01 08:00:00' }, 'en-GB', 'Asia/Tokyo')).toBe('1 Jun 2023, 08:00');
    // QuickTime's CreateDate is UTC by its format: the reader's own time zone.
    expect(recordedZone({ 'QuickTime:CreateDate': '2023:06:01 08:00:00' })).toBe('utc');
    expect(takenAtText(t, { 'QuickTime:CreateDate': '2023:06:01 08:00:00' }, 'en-GB', 'Asia/Tokyo')).toBe('1 Jun 2023, 17:00');
    expect(takenAtText(null, {})).toBeNull();
  });

  it('patches only the descriptive fields that changed, blank as null', () => {
    const current = { caption: 'Old', creator: 'Ann', copyright: null, usage_terms: null };
    expect(editPatch(current, { caption: 'Old ', creator: '', copyright: '© 2024 Ann', usage_terms: '  ' })).toEqual({ creator: null, copyright: '© 2024 Ann' });
    expect(editPatch(current, { caption: 'Old', creator: 'Ann', copyright: '', usage_terms: '' })).toEqual({});
  });
});

function asset(overrides: Partial<AssetDetail> = {}): AssetDetail {
  return {
    id: 7,
    workspace_id: 1,
    folder_id: null,
    display_file_name: 'harbour.jpg',
    file_name: 'harbour.jpg',
    file_type: 'image',
    mime_type: 'image/jpeg',
    file_size: 1000,
    width: 600,
    height: 400,
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
    taken_at: Date.UTC(2021, 8, 14, 16, 30) / 1000,
    camera_make: 'FUJIFILM',
    camera_model: 'X100V',
    lens: null,
    iso: 160,
    exposure: '1/500',
    aperture: 5.6,
    focal_length: 23,
    gps_lat: 54.5,
    gps_lon: -3.25,
    duration: null,
    color_space: 'sRGB',
    caption: 'Boats at dusk\nin the harbour',
    creator: 'Ann Lee',
    copyright: null,
    usage_terms: null,
    keywords: ['boats', 'harbour'],
    metadata_edited: [],
    metadata_version_id: 70,
    custom_fields: {},
    missing_fields: [],
    embedded_metadata: { 'EXIF:DateTimeOriginal': '2021:09:14 16:30:00' },
    ...overrides,
  };
}

const rows = (wrapper: ReturnType<typeof mount>) =>
  Object.fromEntries(wrapper.findAll('dt').map((dt) => [dt.text(), dt.element.nextElementSibling!.textContent.trim()]));

describe('EmbeddedMetadataPanel', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows what the file says, leaving out what it does not, read-only for viewers', () => {
    const wrapper = mount(EmbeddedMetadataPanel, { props: { asset: asset(), editable: false, currentVersionId: 70 } });
    expect(rows(wrapper)).toEqual({
      'Date taken': takenAtText(Date.UTC(2021, 8, 14, 16, 30) / 1000, {})!,
      Camera: 'FUJIFILM X100V',
      Exposure: '1/500 s · f/5.6 · ISO 160 · 23 mm',
      Location: '54.5° N, 3.25° W',
      'Colour space': 'sRGB',
      Caption: 'Boats at dusk\nin the harbour',
      Creator: 'Ann Lee',
      Keywords: 'boatsharbour',
    });
    expect(wrapper.get('a').attributes()).toMatchObject({ href: 'https://www.openstreetmap.org/?mlat=54.5&mlon=-3.25#map=16/54.5/-3.25', rel: 'noopener noreferrer' });
    expect(wrapper.find('button').exists()).toBe(false);
    expect(wrapper.text()).not.toContain('Reading');
  });

  it('says so when the file has nothing, and shows a video its duration and a document its pages', () => {
    const none = asset({ taken_at: null, camera_make: null, camera_model: null, iso: null, exposure: null, aperture: null, focal_length: null, gps_lat: null, gps_lon: null, color_space: null, caption: null, creator: null, keywords: [] });
    expect(mount(EmbeddedMetadataPanel, { props: { asset: none, editable: false, currentVersionId: 70 } }).text()).toContain('The file carries no embedded metadata.');
    const video = mount(EmbeddedMetadataPanel, { props: { asset: { ...none, duration: 65, page_count: null }, editable: false, currentVersionId: 70 } });
    expect(rows(video)).toEqual({ Duration: '1:05' });
    const pdf = mount(EmbeddedMetadataPanel, { props: { asset: { ...none, page_count: 12 }, editable: false, currentVersionId: 70 } });
    expect(rows(pdf)).toEqual({ Pages: '12' });
  });

  it('lets a manager edit the description, sending only what changed', async () => {
    const saved = asset({ caption: 'Boats at dusk', copyright: '© Ann Lee', metadata_edited: ['caption', 'copyright'] });
    const update = vi.spyOn(catalogApi, 'updateAsset').mockResolvedValue(saved);
    const wrapper = mount(EmbeddedMetadataPanel, { props: { asset: asset(), editable: true, currentVersionId: 70 } });
    await wrapper.get('button').trigger('click');
    expect((wrapper.get('#embedded-caption').element as HTMLTextAreaElement).value).toBe('Boats at dusk\nin the harbour');
    await wrapper.get('#embedded-caption').setValue('Boats at dusk');
    await wrapper.get('#embedded-copyright').setValue('© Ann Lee');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(update).toHaveBeenCalledWith(7, { caption: 'Boats at dusk', copyright: '© Ann Lee' });
    expect(wrapper.emitted('saved')![0]![0]).toBe(saved);
    expect(wrapper.find('form').exists()).toBe(false);
  });

  it('shows why a save was refused and keeps the form', async () => {
    vi.spyOn(catalogApi, 'updateAsset').mockRejectedValue(new ApiError('Your role does not allow this action', 403, 'FORBIDDEN'));
    const wrapper = mount(EmbeddedMetadataPanel, { props: { asset: asset(), editable: true, currentVersionId: 70 } });
    await wrapper.get('button').trigger('click');
    await wrapper.get('#embedded-creator').setValue('Someone else');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toBe('Your role does not allow this action');
    expect((wrapper.get('#embedded-creator').element as HTMLInputElement).value).toBe('Someone else');
  });

  it('reads the asset again until the current file was read', async () => {
    vi.useFakeTimers();
    try {
      const fresh = asset({ metadata_version_id: 71, caption: 'New file' });
      const read = vi.spyOn(catalogApi, 'asset').mockResolvedValueOnce(asset()).mockResolvedValueOnce(fresh);
      const wrapper = mount(EmbeddedMetadataPanel, { props: { asset: asset(), editable: false, currentVersionId: 71 } });
      expect(wrapper.get('[role="status"]').text()).toContain('Reading');
      await vi.advanceTimersByTimeAsync(1000);
      expect(read).toHaveBeenCalledTimes(1);
      expect(wrapper.emitted('read')).toBeUndefined();
      await vi.advanceTimersByTimeAsync(2000);
      expect(read).toHaveBeenCalledTimes(2);
      expect(wrapper.emitted('read')![0]![0]).toBe(fresh);
      await wrapper.setProps({ asset: fresh });
      expect(wrapper.find('[role="status"]').exists()).toBe(false);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(read).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
