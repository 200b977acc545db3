import { editDistance } from './edit-distance.js';
import { MAX_CANDIDATES } from './options.js';

/** A word of the term dictionary and the number of documents (in the caller's workspaces) that hold it. */
export interface Term {
  readonly term: string;
  readonly docs: number;
}

/**
 * The dictionary words within `typos` edits of `word` (itself left out: it is matched as typed anyway), fewest edits
 * first, then the most used, then in byte order; at most MAX_CANDIDATES, so that a query word costs a bounded number
 * of index lookups.
 */
export function closestTerms(word: string, typos: number, terms: readonly Term[]): string[] {
  const docs = new Map<string, number>();
  for (const t of terms) docs.set(t.term, (docs.get(t.term) ?? 0) + Number(t.docs));
  const near: { term: string; distance: number; docs: number }[] = [];
  for (const [term, count] of docs) {
    if (term === word) continue;
    const distance = editDistance(word, term, typos);
    if (distance <= typos) near.push({ term, distance, docs: count });
  }
  near.sort((a, b) => a.distance - b.distance || b.docs - a.docs || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  return near.slice(0, MAX_CANDIDATES).map((n) => n.term);
}
