import sharp, { type OutputInfo } from 'sharp';
import { ToolFailure } from './tools.js';

/** issue #5: a 256 px thumbnail and a 1440 px preview (longest edge; smaller images are not enlarged). */
export const THUMBNAIL_SIZE = 256;
export const PREVIEW_SIZE = 1440;
export const RENDITION_MIME = 'image/webp';

export type RenditionKind = 'thumbnail' | 'preview';

export interface RenderedImage {
  kind: RenditionKind;
  data: Buffer;
  width: number;
  height: number;
}

/**
 * The input cannot be decoded (unsupported or broken): retrying will not help, the version gets no preview.
 * `damaged`: the file itself is broken (not merely without a preview, as an encrypted PDF is), so its version is
 * marked unreadable (issue #27). The message is fixed words; the tool's own are `detail`, for the log.
 */
export class UnreadableMedia extends ToolFailure {
  override name = 'UnreadableMedia';
  readonly damaged: boolean;

  constructor(message: string, options: { damaged?: boolean; detail?: string } = {}) {
    super(message, options.detail);
    this.damaged = options.damaged ?? false;
  }
}

/**
 * libvips' message of a failed decode. When several decodes fail at once, libvips can lose a message and sharp
 * reports "Unknown error" (seen on 1 in 9 of six concurrent truncated JPEGs); the decode is then tried again, up
 * to twice, for the words that say why (a file cut short or damaged: src/domain/unreadable.ts).
 */
async function failureMessage(err: Error, decode: () => Promise<unknown>): Promise<string> {
  let message = err.message;
  for (let attempt = 0; attempt < 2 && message === 'Unknown error'; attempt++) {
    message = await decode().then(
      () => message,
      (again: Error) => again.message,
    );
  }
  return message;
}

const inside = (size: number) => ({ width: size, height: size, fit: 'inside' as const, withoutEnlargement: true });

/**
 * Preview and thumbnail of an image file, as WebP, with the EXIF orientation applied (the
 * pixels are turned as a viewer shows them; the output carries no metadata, so no GPS position
 * leaks through a public URL). The original is decoded once, with JPEG shrink-on-load, to the
 * preview's size; the thumbnail is made from those pixels rather than from a second decode.
 */
export async function renderImage(input: string | Buffer): Promise<RenderedImage[]> {
  const decode = () =>
    sharp(input, { failOn: 'error' })
      .autoOrient()
      .resize(inside(PREVIEW_SIZE))
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await decode();
  } catch (err) {
    throw new UnreadableMedia('The image could not be decoded', { detail: await failureMessage(err as Error, decode) });
  }
  const { width, height, channels } = decoded.info;
  const pixels = () => sharp(decoded.data, { raw: { width, height, channels } });
  const [preview, thumbnail] = await Promise.all([
    pixels().webp({ quality: 80, effort: 2 }).toBuffer({ resolveWithObject: true }),
    pixels().resize(inside(THUMBNAIL_SIZE)).webp({ quality: 75, effort: 2 }).toBuffer({ resolveWithObject: true }),
  ]);
  return [
    { kind: 'thumbnail', data: thumbnail.data, width: thumbnail.info.width, height: thumbnail.info.height },
    { kind: 'preview', data: preview.data, width: preview.info.width, height: preview.info.height },
  ];
}
