import type { Dam } from '../../sdk/src/index.js';
import { CliError } from './session.js';

/** The fields of an asset's search document the CLI shows. */
export interface SearchHitDocument {
  id: string;
  workspace_id: number;
  display_file_name: string;
  file_type: string;
  file_size?: number;
  [key: string]: unknown;
}

/** Every hit of an asset search (pages of 250), up to `limit`. */
export async function searchAll(dam: Dam, o: { q: string; filter?: string; workspace?: number; limit: number }): Promise<SearchHitDocument[]> {
  return (await searchPages(dam, o)).hits;
}

/** The hits of an asset search (pages of 250) up to `limit`, and how many the search found in all. */
export async function searchPages(dam: Dam, o: { q: string; filter?: string; workspace?: number; limit: number }): Promise<{ hits: SearchHitDocument[]; found: number }> {
  const hits: SearchHitDocument[] = [];
  let found = 0;
  for (let page = 1; hits.length < o.limit; page++) {
    const per_page = Math.min(250, o.limit - hits.length);
    const { data, error, response } = await dam.api.POST('/search-engine/search-assets', {
      body: {
        q: o.q,
        page,
        per_page,
        ...(o.filter !== undefined && { filter_by: o.filter }),
        ...(o.workspace !== undefined && { workspace_id_filter: o.workspace }),
      },
    });
    if (!data) throw new CliError(`search: ${response.status} ${(error as { error?: string } | undefined)?.error ?? ''}`.trim());
    hits.push(...(data.data.hits.map((h) => h.document) as SearchHitDocument[]));
    found = data.data.found;
    if (data.data.hits.length < per_page || hits.length >= data.data.found) break;
  }
  return { hits, found: Math.max(found, hits.length) };
}
