import { describe, expect, it } from "vitest";
import { newId } from "./ids";
import { readPaymentSearch } from "./payment-search";

describe("the payments search", () => {
  it("reads a customer's number in the forms people write it", () => {
    for (const typed of ["0771234567", "077 123 4567", "+263 77 123 4567", "263771234567", "00263771234567", "771234567", " (077) 123-4567 "]) {
      expect(readPaymentSearch(typed), typed).toEqual({ msisdn: "263771234567" });
    }
  });

  it("reads a payment id as that payment", () => {
    const id = newId("payment");
    expect(readPaymentSearch(` ${id} `)).toEqual({ paymentId: id });
  });

  it("leaves everything else to the references: prefixes, dates, part of a number, a landline, another id", () => {
    for (const typed of ["INV-0771234567", "order-1042", "2024-11", "4567", "077123", "0242 123456", "re_01m8d2vsgjf8azb0w33ed81wsk", "pay_short"]) {
      expect(readPaymentSearch(typed), typed).toEqual({ reference: typed });
    }
  });
});
