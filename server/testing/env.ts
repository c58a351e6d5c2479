import { resetEnvForTests } from "@/server/env";

/** Sets environment variables the way an operator would, and returns how to put them back. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const target = process.env;
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, target[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete target[k];
      else target[k] = v;
    }
    resetEnvForTests();
  };
  apply(vars);
  return () => apply(saved);
}
