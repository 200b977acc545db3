import type { ItemResult } from '../api/types';

/** Names listed in a failure message before "and N more". */
const NAMED = 3;

export interface ResultSummary {
  /** How many items the action was done to. */
  ok: number;
  failed: ItemResult[];
  /** What went wrong, for the user, e.g. "2 of 5 could not be moved: “a.png”, “b.png” (not found: …)."; null when nothing did. */
  failure: string | null;
}

export interface SummaryOptions {
  /** Past participle of the action: "moved", "tagged", "restored". */
  verb: string;
  /** The item's name as the user knows it (null when unknown: the message says "#id"). */
  nameOf: (result: ItemResult) => string | null | undefined;
  /** Why an id can be NOT_FOUND for this action. */
  notFound?: string;
  /** When `results` lists only the failures (a bulk action over a search, issue #27): how many items were tried. */
  total?: number;
}

function names(items: ItemResult[], nameOf: SummaryOptions['nameOf']): string {
  const shown = items.slice(0, NAMED).map((r) => {
    const name = nameOf(r);
    return name ? `“${name}”` : `#${r.id}`;
  });
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** The server's reason without the field prefix it starts with ("tags: asset 9 would have…" → "asset 9 would have…"). */
function reasonOf(result: ItemResult, notFound: string): string {
  if (result.code === 'NOT_FOUND') return notFound;
  const text = (result.error ?? result.code ?? 'failed').replace(/^[a-z_]+: /, '');
  return text || 'failed';
}

/**
 * The per-item results of a bulk action or a restore (issue #11), in a sentence: the failed items
 * grouped by reason, a few named in each group.
 */
export function summarizeResults(results: ItemResult[], options: SummaryOptions): ResultSummary {
  const notFound = options.notFound ?? 'not found: deleted or moved to the trash meanwhile';
  const failed = results.filter((r) => !r.ok);
  const total = options.total ?? results.length;
  const ok = total - failed.length;
  if (!failed.length) return { ok, failed, failure: null };

  if (total === 1) {
    const only = failed[0]!;
    return { ok, failed, failure: `${names([only], options.nameOf)} could not be ${options.verb} (${reasonOf(only, notFound)}).` };
  }
  const groups = new Map<string, ItemResult[]>();
  for (const r of failed) {
    const reason = reasonOf(r, notFound);
    groups.set(reason, [...(groups.get(reason) ?? []), r]);
  }
  const detail = [...groups].map(([reason, items]) => `${names(items, options.nameOf)} (${reason})`).join('; ');
  const head = ok === 0 ? `None of the ${total} could be ${options.verb}` : `${failed.length} of ${total} could not be ${options.verb}`;
  const failure = `${head}: ${detail}.`;
  return { ok, failed, failure };
}

/** "1 asset", "3 assets". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
