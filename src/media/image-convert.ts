import sharp, { type Metadata, type Sharp } from 'sharp';
import { outputSize, type ImageParams } from '../domain/conversions.js';
import path from 'node:path';
import { UnreadableMedia } from './renditions.js';
import { diskFullFailure } from './tools.js';

const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };
const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };

function encode(image: Sharp, p: ImageParams): Sharp {
  switch (p.format) {
    case 'jpeg':
      // JPEG has no alpha: transparent areas become white, as most viewers show them, rather than black.
      return image.flatten({ background: WHITE }).jpeg({ quality: p.quality ?? 80 });
    case 'png':
      return image.png();
    case 'webp':
      return image.webp({ quality: p.quality ?? 80 });
    case 'avif':
      return image.avif({ quality: p.quality ?? 50 });
    case 'tiff':
      // Lossless unless a quality asks for JPEG compression (which has no alpha).
      return p.quality === null ? image.tiff({ compression: 'lzw' }) : image.flatten({ background: WHITE }).tiff({ compression: 'jpeg', quality: p.quality });
    case 'gif':
      return image.gif();
  }
}

/**
 * An image conversion with sharp (issue #15). Decompression bombs are refused before any pixel is
 * decoded: the header's size against `maxPixels` (sharp's limitInputPixels guards the decode as
 * well), and the output's size too, since `enlarge` could ask for more than the source. The EXIF
 * orientation is applied (pixels upright). Metadata (EXIF, ICC, XMP, IPTC) is kept unless
 * `strip_metadata`. Animated GIF and WebP stay animated when written as GIF or WebP; other formats
 * get the first frame. A file sharp cannot read is UnreadableMedia (the conversion fails with the reason).
 */
export async function convertImage(input: string, output: string, p: ImageParams, maxPixels: number): Promise<{ width: number; height: number }> {
  let meta: Metadata;
  try {
    meta = await sharp(input, { failOn: 'error' }).metadata();
  } catch (err) {
    throw new UnreadableMedia('The image could not be read; it may be damaged', { detail: (err as Error).message });
  }
  if (!meta.width || !meta.height) throw new UnreadableMedia('The image could not be read: it has no size');
  const frameHeight = meta.pageHeight ?? meta.height;
  if (meta.width * frameHeight > maxPixels) {
    throw new UnreadableMedia(`The image is ${meta.width} x ${frameHeight} pixels, more than this instance converts (${maxPixels} pixels)`);
  }
  const upright = (meta.orientation ?? 1) >= 5 ? { width: frameHeight, height: meta.width } : { width: meta.width, height: frameHeight };
  const out = outputSize(upright, p);
  if (out.width * out.height > maxPixels) {
    throw new UnreadableMedia(`The result would be ${out.width} x ${out.height} pixels, more than this instance converts (${maxPixels} pixels)`);
  }
  const animated = (p.format === 'gif' || p.format === 'webp') && (meta.pages ?? 1) > 1;
  let image = sharp(input, { failOn: 'error', limitInputPixels: maxPixels, animated }).autoOrient();
  if (p.width !== null || p.height !== null) {
    image = image.resize({
      width: p.width ?? undefined,
      height: p.height ?? undefined,
      fit: p.fit,
      withoutEnlargement: !p.enlarge,
      background: p.format === 'jpeg' ? WHITE : TRANSPARENT,
    });
  }
  if (!p.strip_metadata) image = image.keepMetadata();
  try {
    const info = await encode(image, p).toFile(output);
    return { width: info.width, height: info.height };
  } catch (err) {
    // libvips could not write the result (issue #37): the conversion waits for space.
    const full = await diskFullFailure(path.dirname(output), (err as Error).message);
    if (full) throw full;
    throw new UnreadableMedia('The image could not be converted; it may be damaged', { detail: (err as Error).message });
  }
}
