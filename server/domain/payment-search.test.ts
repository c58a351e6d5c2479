import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newId } from "./ids";
import { distinctivePart, readPaymentSearch, sharedStart } from "./payment-search";

describe("the payments search", () => {
  it("reads a customer's number in the forms people write it", () => {
    for (const typed of ["0771234567", "077 123 4567", "+263 77 123 4567", "263771234567", "00263771234567", "771234567", " (077) 123-4567 "]) {
      expect(readPaymentSearch(typed), typed).toEqual({ by: "number", msisdn: "263771234567", reference: typed.trim() });
    }
  });

  it("reads a payment id as that payment", () => {
    const id = newId("payment");
    expect(readPaymentSearch(` ${id} `)).toEqual({ by: "id", paymentId: id });
    expect(readPaymentSearch(id.toUpperCase())).toEqual({ by: "id", paymentId: id });
  });

  it("leaves everything else to the references: prefixes, dates, part of a number, a landline, another id", () => {
    for (const typed of ["INV-0771234567", "order-1042", "2024-11", "4567", "077123", "0242 123456", "re_01m8d2vsgjf8azb0w33ed81wsk", "pay_short"]) {
      expect(readPaymentSearch(typed), typed).toEqual({ by: "reference", reference: typed });
    }
  });
});

/** No half of a character outside the BMP without its other half. */
const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe("a reference search on references that share a start", () => {
  it("finds the start all references share, ignoring case", () => {
    expect(sharedStart(["INV-00999951", "inv-00999999", "INV-01000000"])).toBe("inv-0");
    expect(sharedStart(["ORD-2026-11-000123", "ORD-2026-11-000124"])).toBe("ord-2026-11-00012");
    expect(sharedStart(["A-1", "B-1"])).toBe("");
    expect(sharedStart(["only-one"])).toBe("");
    expect(sharedStart([])).toBe("");
  });

  it.each([
    ["INV-0042137", "inv-0", "042137"],
    ["inv-0042137", "inv-0", "042137"],
    ["nv-0042137", "inv-0", "042137"], // part of the shared start
    ["0042137", "inv-0", "042137"],
    ["ORD-2026-11-000123", "ord-2026-11-00", "0123"],
    ["50%-off-2026", "50%-off-", "2026"], // wildcards are dropped or kept as typed; the caller escapes
  ])("searches %j among references starting %j by %j", (search, shared, rest) => {
    expect(distinctivePart(search, shared)).toBe(rest);
  });

  it.each([
    ["INV-0042137", ""], // nothing shared
    ["X-INV-0042137", "inv-0"], // does not begin with any of it
    ["INV-00", "inv-0"], // what is left has no three letters or digits to find candidates by
    ["INV-0-1-2", "inv-0"],
    ["INV", "inv-0"], // all of it shared: every reference matches, the list order finds them
    ["İNV-0042137", "i̇nv-0"], // lower-casing changes the length
  ])("searches %j among references starting %j by the whole search", (search, shared) => {
    expect(distinctivePart(search, shared)).toBeUndefined();
  });

  it("never cuts a character outside the BMP in two", () => {
    // 🎉 and 🎊 share their first UTF-16 unit, so references starting with either share half a character.
    const shared = sharedStart(["🎉abc-1", "🎊abc-2"]);
    expect(shared).toBe("\ud83c");
    expect(distinctivePart("🎉abc-123", shared)).toBeUndefined();
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.nat(), fc.string({ unit: "binary" }), (shared, from, tail) => {
        const search = shared.slice(from % (shared.length + 1)) + tail;
        const rest = distinctivePart(search, shared.toLowerCase());
        if (rest !== undefined && wellFormed(search)) expect(wellFormed(rest)).toBe(true);
      }),
    );
  });

  it("keeps an end of the search, so every reference containing the search contains it", () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(), fc.string(), (shared, from, tail) => {
        const search = shared.slice(from % (shared.length + 1)) + tail;
        const rest = distinctivePart(search, shared.toLowerCase());
        if (rest === undefined) return;
        expect(search.endsWith(rest)).toBe(true);
        expect(rest.length).toBeLessThan(search.length);
      }),
    );
  });
});
