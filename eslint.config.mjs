import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  { ignores: [".next/**", "node_modules/**", ".data/**", "next-env.d.ts", "test-results/**", "playwright-report/**"] },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Configuration is read once, in server/env.ts.
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Read configuration through env() from server/env.ts." }],
    },
  },
  {
    // Tooling and tests configure processes they start; the service itself reads env() only.
    files: ["server/env.ts", "*.config.ts", "*.config.mjs", "e2e/**", ".ci/**", "bench/**", "**/*.test.ts", "server/testing/**"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    files: ["**/*.test.ts", "server/testing/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The domain is pure: no framework, ORM, job runner or transport reaches it.
    files: ["server/domain/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: ["next", "next/*", "drizzle-orm", "drizzle-orm/*", "inngest", "@trpc/*", "@/db/*", "@/server/services/*", "@/server/http/*", "postgres", "@electric-sql/*"] },
      ],
    },
  },
  {
    // Dashboard actions go through useSingleFlightMutation (kit.tsx): a plain useMutation lets a
    // double click run the action twice.
    files: ["components/dashboard/**"],
    ignores: ["components/dashboard/kit.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "@tanstack/react-query", importNames: ["useMutation"], message: "Use useSingleFlightMutation from components/dashboard/kit: a double click must run an action once." }] },
      ],
    },
  },
];

export default config;
