import type { AppContext } from '../context.js';

export class CatalogService {
  constructor(private readonly ctx: AppContext) {}
}
