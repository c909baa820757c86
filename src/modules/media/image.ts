/**
 * Image handling for media uploads with sharp (libvips): a file whose extension names a raster image
 * format must decode as an image; its real format gives the stored content type, its (EXIF-oriented)
 * size the `meta.width`/`meta.height`, and a thumbnail of at most {@link THUMB_SIZE} pixels a side is
 * made in the same format (reference §11: thumbnails for images). SVG is never rasterised: it is its
 * own thumbnail, as in listmonk.
 */
import sharp, { type FormatEnum, type Metadata } from 'sharp';
import { FieldError } from '../../errors.js';

/** Longest side of a thumbnail, in pixels (listmonk's admin shows 250 px thumbnails). */
export const THUMB_SIZE = 250;
/** Largest image decoded, in pixels (width × height): refuses decompression bombs. */
const MAX_PIXELS = 100_000_000;

/** Extensions treated as raster images. */
export const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'avif']);

const MIME: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heif: 'image/avif',
};

/** What an uploaded image turned out to be. */
export interface ImageInfo {
  contentType: string;
  width: number;
  height: number;
  /** The thumbnail, encoded in the image's own format. */
  thumbnail: Buffer;
}

/**
 * Decodes the image at `path` and makes its thumbnail. Throws FieldError('file') when the file is not
 * an image in one of the accepted formats, is corrupt, or is larger than 100 megapixels.
 */
export async function inspectImage(path: string): Promise<ImageInfo> {
  const options = { limitInputPixels: MAX_PIXELS, failOn: 'error' as const };
  let meta: Metadata;
  try {
    meta = await sharp(path, options).metadata();
  } catch {
    throw new FieldError('file', 'is not a readable image');
  }
  const format = meta.format === 'heif' && meta.compression !== 'av1' ? 'heic' : meta.format;
  const contentType = format ? MIME[format] : undefined;
  if (contentType === undefined || meta.width === undefined || meta.height === undefined) {
    throw new FieldError('file', `is not an image in an accepted format (${[...IMAGE_EXTENSIONS].join(', ')})`);
  }
  if (meta.width * meta.height > MAX_PIXELS) throw new FieldError('file', 'the image is larger than 100 megapixels');
  let thumbnail: Buffer;
  try {
    thumbnail = await sharp(path, options)
      .autoOrient()
      .resize({ width: THUMB_SIZE, height: THUMB_SIZE, fit: 'inside', withoutEnlargement: true })
      .toFormat(format === 'heif' ? 'avif' : (format as keyof FormatEnum))
      .toBuffer();
  } catch {
    throw new FieldError('file', 'the image could not be decoded');
  }
  return { contentType, width: meta.autoOrient?.width ?? meta.width, height: meta.autoOrient?.height ?? meta.height, thumbnail };
}
