/**
 * What the pay action answers when it does not redirect: the error to show, the number as typed,
 * and the attempt key the form was sent with. A form drawn from this answer sends that key again:
 * the attempt may have made its payment before the error (the answer says to try again, as the
 * same attempt), and without JavaScript the page drawn with the answer would otherwise carry a
 * fresh key, which pays a second time.
 */
export type PayFormState = {
  msisdn: string;
  /** Null when the form was sent without a usable key, or has not been sent: the page's own key then. */
  attemptKey: string | null;
  error: { code: string; message: string; param: string | null } | null;
};

export const INITIAL_PAY_FORM_STATE: PayFormState = { msisdn: "", attemptKey: null, error: null };

/** The query parameter a page is shown again with when its charge changed as Pay was tapped. */
export const AMOUNT_CHANGED_PARAM = "amount_changed";

/** The query parameter a checkout is shown again with when Pay was refused: another attempt was already under way. */
export const IN_PROGRESS_PARAM = "in_progress";
