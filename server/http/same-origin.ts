/**
 * Whether a browser's POST comes from one of this service's own pages, read from its headers as
 * Next's Server Actions read them: the Origin's host against the host the request was sent to
 * (X-Forwarded-Host behind a proxy, else Host). Not against the request's URL, which is the
 * server's own address (`localhost`, an internal name) and need not be what the browser saw.
 * A page on another site cannot set either header: a form sends no custom header, and a script's
 * fetch with one waits on a CORS preflight that Mari never answers.
 */
export function originMatchesHost(origin: string, headers: Headers): boolean {
  const host = headers.get("x-forwarded-host") ?? headers.get("host");
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    // "null" (a sandboxed frame, a redirect from elsewhere) or no address at all.
    return false;
  }
}

/**
 * A call to the dashboard's API (session cookie) that a page on another site may have sent: the
 * browser's Sec-Fetch-Site when it sends one, else its Origin. A POST without either is not a
 * browser's (every browser sends Origin with a POST), so there is no cookie to abuse.
 */
export function sentFromAnotherSite(method: string, headers: Headers): boolean {
  if (method !== "POST") return false;
  const site = headers.get("sec-fetch-site");
  if (site) return site !== "same-origin";
  const origin = headers.get("origin");
  return origin !== null && !originMatchesHost(origin, headers);
}
