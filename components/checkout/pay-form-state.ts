/** What the pay action answers when it does not redirect: the error to show and the number as typed. */
export type PayFormState = {
  msisdn: string;
  error: { code: string; message: string; param: string | null } | null;
};

export const INITIAL_PAY_FORM_STATE: PayFormState = { msisdn: "", error: null };

/** The query parameter a page is shown again with when its charge changed as Pay was tapped. */
export const AMOUNT_CHANGED_PARAM = "amount_changed";
