/**
 * Takes `param` out of this page's address, without a navigation: a notice the address carried
 * (a charge that changed, an endpoint just deleted) is said once, not again on a reload or to
 * whoever the address is shared with.
 */
export function dropQueryParam(param: string): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has(param)) return;
  url.searchParams.delete(param);
  window.history.replaceState(null, "", `${url.pathname}${url.search}${url.hash}`);
}
