/**
 * AI image generation (issue #13): the one small interface the rest of the server sees, whatever
 * provider answers behind it. The implementation speaks OpenAI's Images API (`openai.ts`), which
 * OpenAI-compatible servers speak too; `DAM_IMAGE_GEN_URL` picks the server.
 */
export { createImageGenerator } from './openai.js';
export { decodeImage, NotAnImage, type DecodedImage } from './image-bytes.js';
export { ImageGenRefused, ImageGenUnavailable, type GenerateRequest, type GeneratedImage, type ImageGenerator } from './types.js';
