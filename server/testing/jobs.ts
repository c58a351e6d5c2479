import type { LocalRunner } from "@/server/jobs/local-runner";

/**
 * Holds `runner`'s due work as a provider's timeouts would: each batch it claims waits until
 * `release()` (and then claims nothing), so a pass stays under way. `holding` turns true once a
 * pass has reached its due work; `finished` once a held batch has let go.
 */
export function holdDueWork(runner: LocalRunner) {
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const state = { holding: false, finished: false, release: () => release(), restore: () => {} };
  const slow = runner as unknown as { claimAndRun: (kind: string) => Promise<string[]> };
  const real = slow.claimAndRun;
  slow.claimAndRun = async () => {
    state.holding = true;
    await held;
    state.finished = true;
    return [];
  };
  state.restore = () => {
    slow.claimAndRun = real;
  };
  return state;
}
