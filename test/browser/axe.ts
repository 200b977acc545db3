import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** One rule axe found broken, with its nodes. */
type Result = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'][number];

/** WCAG 2.0 and 2.1, levels A and AA, and axe's best practices (issue #29). */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/** The impacts that fail a page: the bar is none of them. */
const FAILING = new Set(['serious', 'critical']);

/** One line per failing node: rule, impact, the element's selector and what axe says to fix. */
export function describeViolations(results: readonly Result[]): string {
  return results
    .flatMap((rule) =>
      rule.nodes.map((node) => `${rule.id} (${rule.impact ?? 'no impact'}) at ${node.target.map(String).join(' > ')}: ${node.failureSummary?.replace(/\s+/g, ' ').trim() ?? rule.help}`),
    )
    .join('\n');
}

/**
 * The serious and critical violations axe finds on the page as it is now (with its current colour scheme),
 * as readable lines (empty when there are none). `exclude`: selectors axe skips (content that is not the app's).
 */
export async function seriousViolations(page: Page, options: { exclude?: string[] } = {}): Promise<string> {
  let builder = new AxeBuilder({ page }).withTags(AXE_TAGS);
  for (const selector of options.exclude ?? []) builder = builder.exclude(selector);
  const { violations } = await builder.analyze();
  return describeViolations(violations.filter((v) => FAILING.has(v.impact ?? '')));
}

/** Runs axe in light and in dark (prefers-color-scheme), returning `scheme: lines` for each with violations; the scheme is put back to light. */
export async function seriousViolationsInThemes(page: Page, options: { exclude?: string[] } = {}): Promise<string> {
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    // Colours fade over 0.12-0.15 s (main.css): axe must see the settled ones.
    await page.waitForTimeout(300);
    const lines = await seriousViolations(page, options);
    if (lines) found.push(`[${scheme}]\n${lines}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found.join('\n');
}
