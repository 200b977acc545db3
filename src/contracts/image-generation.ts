import { Type, type Static } from 'typebox';
import { Id } from '../http/schemas.js';

/** Sizes of OpenAI's image models (dall-e-2: 256-1024 squares; dall-e-3: 1024 and 1792 wide/tall; GPT image: 1536 wide/tall). */
export const IMAGE_SIZES = ['256x256', '512x512', '1024x1024', '1792x1024', '1024x1792', '1536x1024', '1024x1536'] as const;
export const MAX_PROMPT = 4000;
export const MAX_NEGATIVE_PROMPT = 1000;
export const MAX_IMAGES = 4;

const strict = { additionalProperties: false };

export const GenerateImageBody = Type.Object(
  {
    workspaceId: Id('Workspace the images are stored in'),
    prompt: Type.String({
      minLength: 1,
      maxLength: MAX_PROMPT,
      pattern: '\\S',
      'x-plain-text': 'multiline',
      description: `What to draw, at most ${MAX_PROMPT} characters (line breaks allowed, no other control characters)`,
    }),
    negative_prompt: Type.Optional(
      Type.String({
        maxLength: MAX_NEGATIVE_PROMPT,
        'x-plain-text': 'multiline',
        description: 'What the images should not show; sent to the provider as an instruction with the prompt',
      }),
    ),
    size: Type.Optional(
      Type.Union(
        IMAGE_SIZES.map((s) => Type.Literal(s)),
        { default: '1024x1024', description: 'WIDTHxHEIGHT; which sizes work depends on the model (a size it cannot draw fails the generation with its reason)' },
      ),
    ),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMAGES, default: 1, description: 'Number of images' })),
    folder_id: Type.Optional(Id('Folder of the workspace to put the images in (default: the top level)')),
  },
  strict,
);
export type GenerateImageInput = Static<typeof GenerateImageBody>;

export const GenerationSchema = Type.Object({
  id: Id(),
  workspace_id: Id(),
  folder_id: Type.Union([Id(), Type.Null()], { description: 'Where the images go; null: the top level' }),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')], {
    description:
      'queued (waiting, also between retries), running, succeeded (every image is an asset) or failed (see error; images made before the failure stay)',
  }),
  prompt: Type.String(),
  negative_prompt: Type.Union([Type.String(), Type.Null()]),
  size: Type.String(),
  n: Type.Integer({ description: 'Images asked for' }),
  model: Type.String(),
  asset_ids: Type.Array(Id(), { description: 'Assets created so far, in image order' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: "Why it failed (the provider's reason, e.g. its content policy); while queued after a failed attempt, that attempt's error",
  }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  updated_at: Type.Integer({ description: 'Unix seconds' }),
});
export type GenerationView = Static<typeof GenerationSchema>;
