/**
 * Next.js calls register() once per server process. NEXT_RUNTIME is Next's own switch between
 * the Node and edge bundles; the boot code (database, jobs) exists only in the Node one.
 */
export async function register(): Promise<void> {
  // eslint-disable-next-line no-restricted-properties -- Next's documented runtime switch
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { bootOrExit } = await import("./server/boot-or-exit");
  await bootOrExit();
}
