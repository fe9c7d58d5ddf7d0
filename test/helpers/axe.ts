// Accessibility checks with axe-core (Deque's engine, through @axe-core/playwright) on a page
// open in Chromium: the WCAG 2.0-2.2 A and AA rules. Serious and critical findings fail a test.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * The page's serious and critical axe findings, one line each (rule, impact, where). `exclude`
 * leaves out regions whose markup is a third party's and cannot be changed by us (say why at
 * the call).
 */
export async function axeFindings(page: Page, exclude: string[] = []): Promise<string[]> {
  let builder = new AxeBuilder({ page }).withTags(TAGS);
  for (const selector of exclude) builder = builder.exclude(selector);
  const { violations } = await builder.analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map(
        (n) => `${v.id} (${v.impact}): ${n.target.join(' ')} ${n.html.slice(0, 120)} — ${n.failureSummary ?? v.help}`,
      ),
    );
}
