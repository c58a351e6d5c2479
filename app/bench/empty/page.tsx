import type { Metadata } from "next";

/**
 * The App Router's own baseline for `npm run bench`: a page with nothing of its own under the root
 * layout, so its first-load JavaScript is what every page in this build pays before any code of ours.
 */
export const metadata: Metadata = { robots: { index: false } };

export default function EmptyPage() {
  return null;
}
