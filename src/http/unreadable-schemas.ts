import { Type } from 'typebox';

/**
 * Unreadable files (issue #27): the two properties an asset and its search document carry. One declaration for
 * both answers, so their OpenAPI descriptions agree.
 */
export const UNREADABLE_MEANING =
  "true when the current version's file could not be read when its preview was made: an image that does not decode " +
  '(e.g. a truncated JPEG), a video, audio file or PDF that its tools cannot open. The file is kept and downloads as ' +
  'uploaded; a later readable version clears the flag. false until checked (the preview job runs shortly after the ' +
  'upload), and for files that are fine but get no preview (camera RAW, an encrypted PDF). Search filter: unreadable:true';

export const UnreadableProperties = {
  unreadable: Type.Boolean({ description: UNREADABLE_MEANING }),
  unreadable_reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why the file cannot be read, in plain words (e.g. "The image data ends early; the file looks truncated."); never a ' +
      "tool's own message or a server path. null when unreadable is false",
  }),
};
