"use client";

import { useEffect } from "react";
import { SLOW_POLL_MS } from "./polling";

/**
 * On a hosted page that could not be loaded: asks its status route every SLOW_POLL_MS while the
 * tab is shown, and loads the page again once the route answers (the fault is over), so that a
 * customer waiting on an attempt sees it without tapping anything.
 */
export function RetryWhenBack({ statusPath }: { statusPath: string }) {
  useEffect(() => {
    let stopped = false;
    const look = async () => {
      if (document.hidden) return;
      const res = await fetch(statusPath, { cache: "no-store" }).catch(() => null);
      // 200, or 404 (the page is gone): either way the page itself can be drawn again.
      if (!stopped && res && (res.ok || res.status === 404)) location.reload();
    };
    const timer = setInterval(() => void look(), SLOW_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [statusPath]);
  return null;
}
