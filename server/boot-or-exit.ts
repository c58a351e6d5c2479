/**
 * boot(), or, when the server cannot start, why (on stderr) and exit for its supervisor to see: a
 * server that cannot start must not stay up answering every request with a bare 500, which is what
 * Next does after a failed register(). Here rather than in instrumentation.ts, which Next also
 * compiles for the edge runtime, where process.exit and process.stderr do not exist and each
 * compilation in `next dev` would warn about them.
 *
 * This module imports nothing before the try: modules of the server read the configuration as
 * they load (the provider registry), so a bad value throws while ./boot is being imported.
 */
export async function bootOrExit(): Promise<void> {
  try {
    const { boot } = await import("./boot");
    await boot();
  } catch (e) {
    process.stderr.write(`\nMari could not start: ${e instanceof Error ? e.message : String(e)}\n\n`);
    process.exit(1);
  }
}
