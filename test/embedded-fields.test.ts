import { describe, expect, it } from 'vitest';
import { cleanText, MAX_TAGS, mergeKeywordsIntoTags } from '../src/domain/embedded-metadata.js';
import { EMBEDDED_LIMITS, embeddedFieldsOf, embeddedTagSet } from '../src/media/embedded-fields.js';
import { writebackTags } from '../src/media/writeback-tags.js';

/** The pure rules of embedded metadata (issue #12): ExifTool's raw tags in, column values out, whatever their types. */

const JPEG = 'image/jpeg';
const at = (iso: string) => Date.parse(iso) / 1000;

describe('taken_at', () => {
  it('takes DateTimeOriginal with its own offset, and falls back through the documented order', () => {
    expect(embeddedFieldsOf({ 'EXIF:DateTimeOriginal': '2023:07:14 09:30:00', 'EXIF:OffsetTimeOriginal': '+02:00' }, JPEG).taken_at).toBe(
      at('2023-07-14T07:30:00Z'),
    );
    // Without an offset anywhere: UTC.
    expect(embeddedFieldsOf({ 'EXIF:DateTimeOriginal': '2023:07:14 09:30:00' }, JPEG).taken_at).toBe(at('2023-07-14T09:30:00Z'));
    // Another offset tag of the same camera is better than none.
    expect(embeddedFieldsOf({ 'EXIF:DateTimeOriginal': '2023:07:14 09:30:00', 'EXIF:OffsetTime': '-05:00' }, JPEG).taken_at).toBe(
      at('2023-07-14T14:30:00Z'),
    );
    // XMP carries its offset inline.
    expect(embeddedFieldsOf({ 'XMP:DateTimeOriginal': '2020:01:02 03:04:05-03:00' }, JPEG).taken_at).toBe(at('2020-01-02T06:04:05Z'));
    // An unset camera clock (zeros) is skipped for the next candidate.
    const fallback = { 'EXIF:DateTimeOriginal': '0000:00:00 00:00:00', 'EXIF:CreateDate': '2021:05:06 07:08:09', 'EXIF:OffsetTimeDigitized': '+01:00' };
    expect(embeddedFieldsOf(fallback, JPEG).taken_at).toBe(at('2021-05-06T06:08:09Z'));
    expect(embeddedFieldsOf({ 'QuickTime:CreateDate': '2022:03:04 05:06:07' }, 'video/mp4').taken_at).toBe(at('2022-03-04T05:06:07Z'));
    expect(embeddedFieldsOf({ 'QuickTime:CreationDate': '2022:03:04 05:06:07+09:00', 'QuickTime:CreateDate': '2022:03:03 20:06:07' }, 'video/quicktime').taken_at).toBe(
      at('2022-03-03T20:06:07Z'),
    );
  });

  it('gives null for garbage, odd types and dates outside 1800-2200', () => {
    for (const value of ['yesterday', 12345, ['2020:01:01 00:00:00'], { a: 1 }, '1600:01:01 00:00:00', '9999:12:31 23:59:59', '2020:13:45 99:00:00']) {
      expect(embeddedFieldsOf({ 'EXIF:DateTimeOriginal': value }, JPEG).taken_at).toBeNull();
    }
    // A malformed offset is ignored, not trusted.
    expect(embeddedFieldsOf({ 'EXIF:DateTimeOriginal': '2023:07:14 09:30:00', 'EXIF:OffsetTimeOriginal': '+99' }, JPEG).taken_at).toBe(at('2023-07-14T09:30:00Z'));
  });
});

describe('camera, exposure and position', () => {
  it('reads numbers from numbers and numeric strings, text from text, and refuses the rest', () => {
    const f = embeddedFieldsOf(
      {
        'EXIF:Make': '  Canon\u0000 ',
        'EXIF:Model': 'EOS R5',
        'EXIF:LensModel': 'RF 50mm F1.8',
        'EXIF:ISO': '200 200',
        'EXIF:ExposureTime': '1/250',
        'EXIF:FNumber': '5.6',
        'EXIF:FocalLength': 50,
        'EXIF:ColorSpace': 'Uncalibrated',
        'ICC_Profile:ProfileDescription': 'Display P3',
      },
      JPEG,
    );
    expect(f).toMatchObject({ camera_make: 'Canon', camera_model: 'EOS R5', lens: 'RF 50mm F1.8', iso: 200, exposure: '1/250', aperture: 5.6, focal_length: 50, color_space: 'Display P3' });
    const odd = embeddedFieldsOf({ 'EXIF:Make': { x: 1 }, 'EXIF:ISO': 'lots', 'EXIF:FNumber': -2, 'EXIF:FocalLength': 'NaN', 'EXIF:ExposureTime': 2 }, JPEG);
    expect(odd).toMatchObject({ camera_make: null, iso: null, aperture: null, focal_length: null, exposure: '2' });
  });

  it('gives signed decimal degrees: the composite first, EXIF with its reference, never (0, 0) or out of range', () => {
    expect(embeddedFieldsOf({ 'Composite:GPSLatitude': -33.8568, 'Composite:GPSLongitude': 151.2153 }, JPEG)).toMatchObject({ gps_lat: -33.8568, gps_lon: 151.2153 });
    const exif = { 'EXIF:GPSLatitude': 48.8584, 'EXIF:GPSLatitudeRef': 'North', 'EXIF:GPSLongitude': '2.2945', 'EXIF:GPSLongitudeRef': 'West' };
    expect(embeddedFieldsOf(exif, JPEG)).toMatchObject({ gps_lat: 48.8584, gps_lon: -2.2945 });
    expect(embeddedFieldsOf({ 'Composite:GPSLatitude': 0, 'Composite:GPSLongitude': 0 }, JPEG)).toMatchObject({ gps_lat: null, gps_lon: null });
    expect(embeddedFieldsOf({ 'Composite:GPSLatitude': 91, 'Composite:GPSLongitude': 10 }, JPEG)).toMatchObject({ gps_lat: null, gps_lon: null });
    expect(embeddedFieldsOf({ 'Composite:GPSLatitude': 10 }, JPEG)).toMatchObject({ gps_lat: null, gps_lon: null });
  });

  it('turns the size by EXIF Orientation 5-8 and a video rotation of 90 or 270 degrees', () => {
    expect(embeddedFieldsOf({ 'File:ImageWidth': 600, 'File:ImageHeight': 400, 'EXIF:Orientation': 6 }, JPEG)).toMatchObject({ width: 400, height: 600 });
    expect(embeddedFieldsOf({ 'File:ImageWidth': 600, 'File:ImageHeight': 400, 'EXIF:Orientation': 3 }, JPEG)).toMatchObject({ width: 600, height: 400 });
    const video = { 'QuickTime:ImageWidth': 1920, 'QuickTime:ImageHeight': 1080, 'Composite:Rotation': 90, 'QuickTime:Duration': 2.5 };
    expect(embeddedFieldsOf(video, 'video/mp4')).toMatchObject({ width: 1080, height: 1920, duration: 2.5 });
    // EXIF's own ImageWidth (a thumbnail's) is not the picture's size.
    expect(embeddedFieldsOf({ 'EXIF:ImageWidth': 160, 'EXIF:ImageHeight': 120 }, JPEG)).toMatchObject({ width: null, height: null });
  });

  it('keeps duration for audio and video and page_count for PDFs only', () => {
    expect(embeddedFieldsOf({ 'Composite:Duration': 3.2 }, 'audio/mpeg').duration).toBe(3.2);
    expect(embeddedFieldsOf({ 'Composite:Duration': 3.2 }, 'image/gif').duration).toBeNull();
    expect(embeddedFieldsOf({ 'PDF:PageCount': 12 }, 'application/pdf').page_count).toBe(12);
    expect(embeddedFieldsOf({ 'PDF:PageCount': 12 }, JPEG).page_count).toBeNull();
    expect(embeddedFieldsOf({ 'PDF:PageCount': 0 }, 'application/pdf').page_count).toBeNull();
  });
});

describe('descriptive text and keywords', () => {
  it('prefers IPTC, then XMP, then EXIF, as documented, and cleans and bounds the text', () => {
    const f = embeddedFieldsOf(
      {
        'IPTC:Caption-Abstract': 'IPTC caption',
        'XMP:Description': 'XMP caption',
        'EXIF:ImageDescription': 'EXIF caption',
        'XMP:Creator': ['Ann', 'Bob'],
        'IPTC:By-line': 'Carl',
        'EXIF:Copyright': '(c) EXIF',
        'XMP:UsageTerms': 'Line one\r\nline two\u202e',
      },
      JPEG,
    );
    expect(f).toMatchObject({ caption: 'IPTC caption', creator: 'Ann; Bob', copyright: '(c) EXIF', usage_terms: 'Line one\nline two' });
    const long = embeddedFieldsOf({ 'XMP:Description': 'x'.repeat(50_000), 'IPTC:By-line': `A\nB\tC${'y'.repeat(5000)}` }, JPEG);
    expect(long.caption).toHaveLength(10_000);
    expect(long.creator!.startsWith('A B C')).toBe(true);
    expect(long.creator).toHaveLength(2000);
    expect(embeddedFieldsOf({ 'IPTC:Caption-Abstract': '   ', 'XMP:Description': 'second' }, JPEG).caption).toBe('second');
  });

  it('joins IPTC Keywords and XMP dc:subject without repeats in any case, leaving out overlong ones', () => {
    const f = embeddedFieldsOf({ 'IPTC:Keywords': ['Paris', 'tower', 'k'.repeat(101)], 'XMP:Subject': ['paris', 'Night', 42] }, JPEG);
    expect(f.keywords).toEqual(['Paris', 'tower', 'Night', '42']);
    expect(embeddedFieldsOf({ 'IPTC:Keywords': 'single' }, JPEG).keywords).toEqual(['single']);
    expect(embeddedFieldsOf({ 'IPTC:Keywords': Array.from({ length: 800 }, (_, i) => `kw${i}`) }, JPEG).keywords).toHaveLength(500);
  });

  it('cleanText removes control and bidirectional characters and never cuts a surrogate pair in half', () => {
    expect(cleanText('a\u0007b\u202ec\u0085', 100)).toBe('abc');
    expect(cleanText('\u0001\u0002', 100)).toBeNull();
    expect(cleanText(`${'a'.repeat(9)}\u{1F600}`, 10)).toBe('a'.repeat(9));
  });
});

describe('keywords into tags', () => {
  it('adds only keywords new since the previous read, without repeats in any case, up to the tag limit', () => {
    expect(mergeKeywordsIntoTags([], [], ['Paris', 'Tower'])).toEqual(['Paris', 'Tower']);
    // "Tower" was removed by a user after the first read: the same file does not bring it back.
    expect(mergeKeywordsIntoTags(['Paris'], ['Paris', 'Tower'], ['Paris', 'Tower', 'Night'])).toEqual(['Paris', 'Night']);
    expect(mergeKeywordsIntoTags(['NIGHT'], [], ['night', 'Day'])).toEqual(['NIGHT', 'Day']);
    const full = Array.from({ length: MAX_TAGS - 1 }, (_, i) => `t${i}`);
    expect(mergeKeywordsIntoTags(full, [], ['a', 'b'])).toEqual([...full, 'a']);
  });
});

describe('the kept tag set', () => {
  it('drops file-system tags, binary values and the reader\'s bookkeeping, and keeps the file\'s own facts', () => {
    const { tags, omitted } = embeddedTagSet({
      SourceFile: '/tmp/x/source.jpg',
      'File:FileName': 'source.jpg',
      'File:Directory': '/tmp/x',
      'File:FileSize': '4.3 kB',
      'File:FileModifyDate': '2026:01:01 00:00:00+00:00',
      'File:FilePermissions': '-rw-r--r--',
      'File:FileType': 'JPEG',
      'File:MIMEType': 'image/jpeg',
      'ExifTool:ExifToolVersion': 13.59,
      'EXIF:ThumbnailImage': '(Binary data 5120 bytes, use -b option to extract)',
      'EXIF:Make': 'Canon',
      'IPTC:Keywords': ['a', 'b'],
      errors: [],
      warnings: [],
    });
    expect(tags).toEqual({ 'File:FileType': 'JPEG', 'File:MIMEType': 'image/jpeg', 'EXIF:Make': 'Canon', 'IPTC:Keywords': ['a', 'b'] });
    expect(omitted).toBe(0);
  });

  it('stays within 64 KiB by leaving out the largest values first, and within 1,000 tags', () => {
    const raw: Record<string, unknown> = { 'EXIF:Make': 'Canon' };
    for (let i = 0; i < 60; i += 1) raw[`XMP:Big${i}`] = 'z'.repeat(1900);
    raw['XMP:Huge'] = Array.from({ length: 100 }, () => 'h'.repeat(1500));
    const { tags, omitted } = embeddedTagSet(raw);
    expect(Buffer.byteLength(JSON.stringify(tags))).toBeLessThanOrEqual(EMBEDDED_LIMITS.maxBytes);
    expect(tags).not.toHaveProperty('XMP:Huge');
    expect(tags['EXIF:Make']).toBe('Canon');
    expect(omitted).toBeGreaterThan(1);
    expect(omitted).toBe(61 - Object.keys(tags).length + 1);

    const many: Record<string, unknown> = {};
    for (let i = 0; i < 1500; i += 1) many[`XMP:T${i}`] = i;
    const bounded = embeddedTagSet(many);
    expect(Object.keys(bounded.tags)).toHaveLength(1000);
    expect(bounded.omitted).toBe(500);
  });
});

describe('write-back tags', () => {
  const values = { caption: 'Cap', creator: 'Ann; Bob', copyright: null, usage_terms: 'Terms', tags: ['a', 'b'] };

  it('replaces: every place of a field, a missing value removed, tags as the keywords', () => {
    expect(writebackTags(values, true)).toEqual({
      'XMP-dc:Description': 'Cap',
      'IPTC:Caption-Abstract': 'Cap',
      'EXIF:ImageDescription': 'Cap',
      'IPTC:By-line': 'Ann; Bob',
      'EXIF:Artist': 'Ann; Bob',
      'XMP-dc:Creator': ['Ann', 'Bob'],
      'XMP-dc:Rights': null,
      'IPTC:CopyrightNotice': null,
      'EXIF:Copyright': null,
      'XMP-xmpRights:UsageTerms': 'Terms',
      'XMP-dc:Subject': ['a', 'b'],
      'IPTC:Keywords': ['a', 'b'],
      'IPTC:CodedCharacterSet': 'UTF8',
    });
    expect(writebackTags({ ...values, tags: [] }, true)).toMatchObject({ 'XMP-dc:Subject': null, 'IPTC:Keywords': null });
  });

  it('before the file was read: values only, tags added to its keywords, nothing removed', () => {
    const tags = writebackTags(values, false);
    expect(tags).not.toHaveProperty('XMP-dc:Rights');
    expect(tags).not.toHaveProperty('XMP-dc:Subject');
    expect(tags).toMatchObject({ 'XMP-dc:Subject-': ['a', 'b'], 'XMP-dc:Subject+': ['a', 'b'], 'IPTC:Keywords+': ['a', 'b'], 'XMP-dc:Description': 'Cap' });
  });
});
