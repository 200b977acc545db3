import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services/index.js';
import { assetRoutes } from './assets.js';
import { bulkRoutes } from './bulk.js';
import { collectionRoutes } from './collections.js';
import { customFieldRoutes } from './custom-fields.js';
import { bulkFieldRoutes } from './bulk-fields.js';
import { folderRoutes } from './folders.js';
import { trashRoutes } from './trash.js';

/** The catalog under /dam: assets, folders and collections, one routes file each; their trash and bulk operations; custom fields (issue #30). */
export const catalogRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  await app.register(assetRoutes, { catalog: services.catalog, answers: services.answers, reads: services.reads });
  await app.register(folderRoutes, { catalog: services.catalog });
  await app.register(collectionRoutes, { catalog: services.catalog });
  await app.register(trashRoutes, { trash: services.trash });
  await app.register(bulkRoutes, { bulk: services.bulk });
  await app.register(customFieldRoutes, { fields: services.fields });
  await app.register(bulkFieldRoutes, { bulkFields: services.bulkFields });
};
