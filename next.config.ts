import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./server/http/security-headers";

const config: NextConfig = {
  // PGlite ships a wasm PostgreSQL and postgres-js opens raw sockets: both must stay
  // plain Node modules rather than be bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "ioredis", "rate-limiter-flexible"],
  poweredByHeader: false,
  // proxy.ts answers paths with a trailing slash: Next's redirect would carry no Request-Id.
  skipTrailingSlashRedirect: true,
  reactStrictMode: true,
  typedRoutes: false,
  // `next dev` serves its scripts to localhost only; 127.0.0.1 is the same machine.
  allowedDevOrigins: ["127.0.0.1"],
  // Every response; the pages' Content Security Policy (with a nonce) comes from proxy.ts.
  async headers() {
    return [{ source: "/:path*", headers: [...SECURITY_HEADERS] }];
  },
};

export default config;
