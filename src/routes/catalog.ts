import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services/index.js';

export const catalogRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (_app, _opts) => {};
