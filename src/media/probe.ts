import sharp from 'sharp';

export interface ImageProbe {
  width: number;
  height: number;
}

/**
 * Displayed dimensions of an image, read with sharp from the first bytes of the
 * file, given as a buffer or a local path (headers only; no pixels are decoded). EXIF orientations 5-8 rotate the
 * picture by 90°, so width and height are swapped, as a viewer shows them.
 * Returns undefined for anything sharp cannot read.
 */
export async function probeImage(input: Buffer | string): Promise<ImageProbe | undefined> {
  try {
    const meta = await sharp(input, { failOn: 'none' }).metadata();
    if (!meta.width || !meta.height) return undefined;
    const rotated = (meta.orientation ?? 1) >= 5;
    return rotated ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  } catch {
    return undefined;
  }
}

/** How much of a file `probeImage` needs: enough for large EXIF/ICC blocks before the frame header. */
export const PROBE_BYTES = 4 * 1024 * 1024;

