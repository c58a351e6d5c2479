import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** What the pages are held to: WCAG 2.1 A and AA, and axe's best practices. */
const RULESETS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

/**
 * The page as it stands passes axe-core's checks (contrast, names and labels, landmarks,
 * headings, ARIA use); a failure lists each rule with the elements that break it.
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Checked at rest: Next's client navigation (a redirect after the pay button, for one) takes the
  // old <title> out and puts the new one in a moment later (10–100 ms), so axe could meet a page
  // between the two. A page that never gets a title still fails here.
  await expect(page, `${what}: the page has a title`).toHaveTitle(/\S/);
  const { violations } = await new AxeBuilder({ page }).withTags(RULESETS).analyze();
  const found = violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(found, `${what}: ${page.url()}`).toEqual([]);
}
