/** Starts bench/chaos/receiver.mjs in its own process and asks it what it got. */
import { fork } from "node:child_process";
import path from "node:path";

export type ReceiverDump = { total: number; inFlight: number; received: Map<string, number> };

export type Receiver = {
  url: string;
  /** Every later answer is held for a time drawn from [minMs, maxMs]. */
  hold(minMs: number, maxMs: number): Promise<void>;
  dump(): Promise<ReceiverDump>;
  close(): Promise<void>;
};

export async function startReceiver(port: number): Promise<Receiver> {
  const child = fork(path.join(import.meta.dirname, "receiver.mjs"), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, RECEIVER_PORT: String(port) },
  });
  const ask = <T>(msg: Record<string, unknown>, type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: { type: string } & T) => {
        if (m.type !== type) return;
        child.off("message", onMessage);
        resolve(m);
      };
      child.on("message", onMessage);
      if (!child.connected) reject(new Error("the receiver has exited"));
      else child.send(msg);
    });
  const ready = await new Promise<{ port: number }>((resolve, reject) => {
    child.once("message", (m: { type: string; port: number }) => resolve(m));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the receiver exited (${code}) before listening on ${port}`)));
  });
  return {
    url: `http://127.0.0.1:${ready.port}/webhooks`,
    hold: async (minMs, maxMs) => void (await ask({ type: "hold", minMs, maxMs }, "hold")),
    dump: async () => {
      const m = await ask<{ total: number; inFlight: number; received: [string, number][] }>({ type: "dump" }, "dump");
      return { total: m.total, inFlight: m.inFlight, received: new Map(m.received) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || !child.connected) return resolve();
        child.once("exit", () => resolve());
        child.send({ type: "close" });
      }),
  };
}
