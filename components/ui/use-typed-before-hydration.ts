import { useLayoutEffect, type RefObject } from "react";

/**
 * Text typed into a server-rendered field before the page's script ran (a slow connection):
 * hydration leaves it in the field, but the component's state does not know it, and the next
 * render would wipe it. Read once, as the field mounts, and handed to `adopt`.
 */
export function useTypedBeforeHydration(field: RefObject<HTMLInputElement | null>, value: string, adopt: (typed: string) => void): void {
  useLayoutEffect(() => {
    const typed = field.current?.value;
    if (typed && typed !== value) adopt(typed);
    // On mount only: any later difference is React's own update on its way to the field.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}
