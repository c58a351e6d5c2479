import { createServer, type AddressInfo } from "node:net";

/** A port on 127.0.0.1 that nothing listens on just now, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
