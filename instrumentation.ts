/**
 * Next.js calls register() once per server process. NEXT_RUNTIME is Next's own switch between
 * the Node and edge bundles; the boot code (database, jobs) exists only in the Node one.
 */
export async function register(): Promise<void> {
  // eslint-disable-next-line no-restricted-properties -- Next's documented runtime switch
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { boot } = await import("./server/boot");
  try {
    await boot();
  } catch (e) {
    // A server that cannot start must not stay up answering every request with a bare 500 (what
    // Next does after a failed register): it says why, and exits for its supervisor to see.
    process.stderr.write(`\nMari could not start: ${e instanceof Error ? e.message : String(e)}\n\n`);
    process.exit(1);
  }
}
