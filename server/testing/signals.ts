import type { Db } from "@/db/client";
import { onJobSignal } from "@/server/services/job-signals";

/**
 * The job signals `run` sends, each with whether a transaction it began was open when it went: a
 * signal sent from inside one could reach a worker before its rows do. `run` gets `db` watched.
 */
export async function signalsSentBy(db: Db, run: (watched: Db) => Promise<void>): Promise<{ type: string; whileOpen: boolean }[]> {
  let open = false;
  const watched = new Proxy(db, {
    get(target, key, receiver) {
      if (key !== "transaction") return Reflect.get(target, key, receiver) as unknown;
      return async (...args: Parameters<Db["transaction"]>) => {
        open = true;
        try {
          return await target.transaction(...args);
        } finally {
          open = false;
        }
      };
    },
  });
  const told: { type: string; whileOpen: boolean }[] = [];
  onJobSignal((signal) => told.push({ type: signal.type, whileOpen: open }));
  try {
    await run(watched);
  } finally {
    onJobSignal(undefined);
  }
  return told;
}
