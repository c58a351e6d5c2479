import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";

/**
 * One process at a time on an embedded database directory. PGlite does no locking of its own, and
 * a second process writing beside the first (`npm run seed` while the server runs) corrupts the
 * directory beyond repair. The lock is a file beside the directory holding the owner's pid; a
 * lock whose process has died is taken over. Returns the release.
 */
export function lockDataDir(dir: string): () => void {
  const file = `${dir}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw e;
      const owner = Number(readFileSync(file, "utf8").trim());
      if (owner === process.pid) return () => {};
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(
          `The embedded database ${dir} is open in another process (pid ${owner}): stop that process first, since two processes at once would corrupt it. ` +
            `(If pid ${owner} is not Mari, delete ${file}.)`,
        );
      }
      unlinkSync(file);
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off("exit", release);
    try {
      if (Number(readFileSync(file, "utf8").trim()) === process.pid) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  process.on("exit", release);
  return release;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
