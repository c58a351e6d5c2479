import { closeSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from "node:fs";

/**
 * One process at a time on an embedded database directory. PGlite does no locking of its own, and
 * a second process writing beside the first (`npm run seed` while the server runs) corrupts the
 * directory beyond repair. The lock is a file beside the directory holding the owner's pid; a
 * lock whose process has died is taken over. Returns the release.
 */
export function lockDataDir(dir: string): () => void {
  const file = `${dir}.lock`;
  const owner = lockOwner(file);
  if (owner === process.pid) return () => {};
  if (owner !== null && processAlive(owner)) {
    throw new Error(
      `The embedded database ${dir} is open in another process (pid ${owner}): stop that process first, since two processes at once would corrupt it. ` +
        `(If pid ${owner} is not Mari, delete ${file}.)`,
    );
  }
  // No lock, or one whose process has died (or that names none): taken over.
  rmSync(file, { force: true });
  // Exclusive create: of two processes starting at once, the second fails here (EEXIST).
  const fd = openSync(file, "wx", 0o600);
  writeSync(fd, String(process.pid));
  closeSync(fd);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off("exit", release);
    if (lockOwner(file) === process.pid) unlinkSync(file);
  };
  process.on("exit", release);
  return release;
}

/** The pid a lock file names, or null when there is none (or it names no process id). */
function lockOwner(file: string): number | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Whether a process with this id exists (for this user or another). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
