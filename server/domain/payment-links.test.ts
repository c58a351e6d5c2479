import { describe, expect, it } from "vitest";
import { newId } from "./ids";
import { customerReference, linkPaymentReference } from "./payment-links";

describe("the reference a customer quotes", () => {
  const link = newId("paymentLink");
  const id = newId("payment");

  it("is a link payment's code: the end of its reference, made of its payment id's last characters, in capitals", () => {
    const reference = linkPaymentReference(link, id);
    expect(reference).toBe(`${link}-${id.slice(-8)}`);
    expect(customerReference({ id, reference, paymentLinkId: link })).toBe(id.slice(-8).toUpperCase());
  });

  it("is the merchant's own reference whole, even one shaped like a link payment's", () => {
    expect(customerReference({ id, reference: "order-1001#2", paymentLinkId: null })).toBe("order-1001#2");
    // A checkout's order may be named anything, a link payment's reference too.
    expect(customerReference({ id, reference: linkPaymentReference(link, id), paymentLinkId: null })).toBe(`${link}-${id.slice(-8)}`);
    // Through a link but not of its making (another payment's code): whole.
    expect(customerReference({ id, reference: linkPaymentReference(link, newId("payment")), paymentLinkId: link })).toMatch(/^plink_/);
  });
});
