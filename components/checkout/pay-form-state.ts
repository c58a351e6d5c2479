/** What the pay action answers when it does not redirect: the error to show and the number as typed. */
export type PayFormState = {
  msisdn: string;
  error: { code: string; message: string; param: string | null } | null;
};

export const INITIAL_PAY_FORM_STATE: PayFormState = { msisdn: "", error: null };

/** The query parameter a page is shown again with when its charge changed as Pay was tapped. */
export const AMOUNT_CHANGED_PARAM = "amount_changed";

/** `url` (absolute) as a path and query without `param`, for `history.replaceState`. */
export function withoutParam(url: string, param: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete(param);
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}
