import { beforeAll, describe, expect, it } from "vitest";
import { INITIAL_PAY_FORM_STATE } from "@/components/checkout/pay-form-state";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { payLinkAction } from "./actions";

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await seedTestMerchant();
});

function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

describe("the pay action's answer when it does not redirect", () => {
  it("carries the attempt key the form was sent with, so the form drawn from it sends that attempt again", async () => {
    const link = await createPaymentLink(await merchant.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" });
    const answer = await payLinkAction(link.id, INITIAL_PAY_FORM_STATE, formOf({ msisdn: "0242 704 000", attempt_key: "attempt-one" }));
    expect(answer).toMatchObject({ msisdn: "0242 704 000", attemptKey: "attempt-one", error: { code: "msisdn_invalid" } });
  });

  it("carries no key when the form sent none a payment could take: the page's own key is used then", async () => {
    const link = await createPaymentLink(await merchant.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" });
    const answer = await payLinkAction(link.id, INITIAL_PAY_FORM_STATE, formOf({ msisdn: "0771234567", attempt_key: "" }));
    expect(answer).toMatchObject({ attemptKey: null, error: { code: "parameter_invalid", param: "idempotency_key" } });
  });
});
