import type { Page } from "@playwright/test";

/** How far the page reaches past the screen's width: 0 when nothing needs sideways scrolling. */
export const pageOverflow = (page: Page): Promise<number> => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The dashboard's tables that need sideways scrolling inside their box, each as `scrollWidth > clientWidth`: none, when all fit. */
export const tablesWiderThanTheirBox = (page: Page): Promise<string[]> =>
  page.locator(".table-wrap").evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => `${e.scrollWidth} > ${e.clientWidth}`));
