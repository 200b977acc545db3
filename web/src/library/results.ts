import type { ItemResult } from '../api/types';
import { translate } from '../i18n';

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
  /**
   * The action in the form the library.summary sentences take in the active language (a past participle in English and
   * German, "moved", "verschoben"; a noun of action in French, "Déplacement"; an infinitive in Spanish, "mover"): one of
   * library.verbs, or a word of another area in the same form.
   */
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
    return name ? translate('library.quoted', { name }) : translate('library.summary.byId', { id: r.id });
  });
  const more = items.length - shown.length;
  return more > 0 ? translate('library.summary.more', { names: shown.join(', '), n: more }) : shown.join(', ');
}

/** The server's reason without the field prefix it starts with ("tags: asset 9 would have…" → "asset 9 would have…"). */
function reasonOf(result: ItemResult, notFound: string): string {
  if (result.code === 'NOT_FOUND') return notFound;
  const text = (result.error ?? result.code ?? '').replace(/^[a-z_]+: /, '');
  return text || translate('library.summary.failed');
}

/**
 * The per-item results of a bulk action or a restore (issue #11), in a sentence: the failed items
 * grouped by reason, a few named in each group.
 */
export function summarizeResults(results: ItemResult[], options: SummaryOptions): ResultSummary {
  const notFound = options.notFound ?? translate('library.summary.notFound');
  const failed = results.filter((r) => !r.ok);
  const total = options.total ?? results.length;
  const ok = total - failed.length;
  if (!failed.length) return { ok, failed, failure: null };

  const verb = options.verb;
  if (total === 1) {
    const only = failed[0]!;
    return { ok, failed, failure: translate('library.summary.one', { name: names([only], options.nameOf), verb, reason: reasonOf(only, notFound) }) };
  }
  const groups = new Map<string, ItemResult[]>();
  for (const r of failed) {
    const reason = reasonOf(r, notFound);
    groups.set(reason, [...(groups.get(reason) ?? []), r]);
  }
  const detail = [...groups].map(([reason, items]) => translate('library.summary.group', { names: names(items, options.nameOf), reason })).join('; ');
  const failure =
    ok === 0
      ? translate('library.summary.none', { total, verb, detail })
      : translate('library.summary.some', { failed: failed.length, total, verb, detail }, failed.length);
  return { ok, failed, failure };
}

/**
 * "1 asset", "3 assets": English only. Callers in the converted areas use a catalogue plural instead
 * (`t('library.assetCount', { n }, n)`); this stays for the callers not converted yet.
 */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
