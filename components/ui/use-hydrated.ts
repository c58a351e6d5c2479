import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False while the page is server-rendered and while React hydrates it, true once this script runs:
 * for controls that do nothing without their handlers, which stay disabled until then (a click
 * before hydration would otherwise be lost, or worse, do the browser's default).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
