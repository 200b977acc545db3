import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ErrorBody, IdParams, ok } from '../http/schemas.js';
import type { ImageGenerationService } from '../services/image-generation-service.js';
import { GenerateImageBody, GenerationSchema, MAX_IMAGES } from '../contracts/image-generation.js';

const NOT_CONFIGURED = 'Without an image provider configured on this instance, both operations answer 404 with code IMAGE_GEN_NOT_CONFIGURED.';

/** AI image generation into the library (issue #13). */
export const imageGenerationRoutes: FastifyPluginCallbackTypebox<{ imageGeneration: ImageGenerationService }> = (app, { imageGeneration }, done) => {
  app.post(
    '/generate-image',
    {
      config: { idempotent: true },
      schema: {
        tags: ['image generation'],
        summary: 'Generate images from a prompt into the library (managers and admins)',
        description:
          `Queues a generation of 1 to ${MAX_IMAGES} images (n, default 1) of the given size (default 1024x1024) by the ` +
          "instance's image model, and answers 202 with it at once (status queued); poll GET /generate-image/{id}. " +
          'Each image becomes an asset in folder_id (a folder of the workspace; default the top level) like any upload: ' +
          'thumbnails, the asset.upload activity entry by the requester, and its size counted in the workspace\'s storage. ' +
          'The file name comes from the prompt\'s first words and the image\'s number; metadata holds prompt, ' +
          'revised_prompt (the prompt the model actually drew, or null), model, size and generated_at (ISO 8601 UTC), and ' +
          'negative_prompt when given. A refusal by the provider (e.g. its content policy) fails the generation with the ' +
          "provider's reason; an unreachable or failing provider is retried with back-off before the generation fails. " +
          'Each workspace may ask for a limited number of images per UTC day (failed generations count too); one more answers ' +
          '429 IMAGE_GEN_DAILY_LIMIT with limit, used and resets_at (Unix seconds). ' +
          NOT_CONFIGURED,
        body: GenerateImageBody,
        response: {
          202: Envelope(GenerationSchema),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req, reply) => reply.status(202).send(ok(await imageGeneration.request(req.caller, req.body))),
  );

  app.get(
    '/generate-image/:id',
    {
      schema: {
        tags: ['image generation'],
        summary: 'Status of an image generation and the assets it created (members of its workspace)',
        description:
          'status is queued, running, succeeded or failed; asset_ids lists the assets created so far in image order ' +
          '(images made before a failure stay); error gives the reason of a failure. Not a member of the workspace: 404. ' +
          NOT_CONFIGURED,
        params: IdParams,
        response: { 200: Envelope(GenerationSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await imageGeneration.get(req.caller, req.params.id)),
  );
  done();
};
