import type { NextConfig } from "next";

const config: NextConfig = {
  // PGlite ships a wasm PostgreSQL and postgres-js opens raw sockets: both must stay
  // plain Node modules rather than be bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "ioredis", "rate-limiter-flexible"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
};

export default config;
