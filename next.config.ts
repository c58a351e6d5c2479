import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./server/http/security-headers";

const config: NextConfig = {
  // PGlite ships a wasm PostgreSQL and postgres-js opens raw sockets: both must stay
  // plain Node modules rather than be bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "ioredis", "rate-limiter-flexible"],
  poweredByHeader: false,
  // Next's redirect of a path with a trailing slash carries no Request-Id: /v1 answers such a path
  // itself (apiRoute, a 404 in the envelope), and proxy.ts redirects the pages'.
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
