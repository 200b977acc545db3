import { describe, expect, it } from 'vitest';
import { fileTypeOf, orientationOf } from '../src/domain/file-types.js';

describe('fileTypeOf', () => {
  it.each([
    ['image/jpeg', 'image'],
    ['image/svg+xml', 'image'],
    ['IMAGE/PNG', 'image'],
    ['video/mp4', 'video'],
    ['audio/mpeg', 'audio'],
    ['application/pdf', 'document'],
    ['text/plain; charset=utf-8', 'document'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document'],
    ['application/vnd.oasis.opendocument.spreadsheet', 'document'],
    ['application/msword', 'document'],
    ['application/zip', 'archive'],
    ['application/x-7z-compressed', 'archive'],
    ['application/gzip', 'archive'],
    ['application/vnd.rar', 'archive'],
    ['application/octet-stream', 'other'],
    ['font/woff2', 'other'],
    ['model/gltf+json', 'other'],
    ['image', 'other'],
    ['image/', 'other'],
    ['/jpeg', 'other'],
    ['', 'other'],
  ] as const)('%s -> %s', (mime, expected) => {
    expect(fileTypeOf(mime)).toBe(expected);
  });

  it('treats a missing MIME type as other', () => {
    expect(fileTypeOf(null)).toBe('other');
    expect(fileTypeOf(undefined)).toBe('other');
  });
});

describe('orientationOf', () => {
  it('derives the orientation from the dimensions', () => {
    expect(orientationOf(1920, 1080)).toBe('landscape');
    expect(orientationOf(1080, 1920)).toBe('portrait');
    expect(orientationOf(500, 500)).toBe('square');
    expect(orientationOf(2, 1)).toBe('landscape');
  });

  it('is null when a dimension is unknown or not positive', () => {
    expect(orientationOf(null, 100)).toBeNull();
    expect(orientationOf(100, undefined)).toBeNull();
    expect(orientationOf(0, 100)).toBeNull();
    expect(orientationOf(100, -5)).toBeNull();
    expect(orientationOf(Number.NaN, 100)).toBeNull();
    expect(orientationOf(Number.POSITIVE_INFINITY, 100)).toBeNull();
  });
});
