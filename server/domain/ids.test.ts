import { describe, expect, it } from "vitest";
import { ID_PREFIXES, idTime, isId, newId, randomSecret } from "./ids";

describe("newId", () => {
  it("uses the registered prefix for every kind", () => {
    for (const [kind, prefix] of Object.entries(ID_PREFIXES)) {
      const id = newId(kind as keyof typeof ID_PREFIXES);
      expect(id.startsWith(`${prefix}_`)).toBe(true);
      expect(isId(kind as keyof typeof ID_PREFIXES, id)).toBe(true);
    }
  });

  it("gives the public objects the prefixes the API promises", () => {
    expect(ID_PREFIXES).toMatchObject({
      payment: "pay",
      refund: "re",
      paymentLink: "plink",
      checkoutSession: "cs",
      event: "evt",
      webhookEndpoint: "we",
      webhookDelivery: "whd",
      settlement: "stl",
      request: "req",
    });
  });

  it("sorts by creation time as a plain string", () => {
    const start = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 500 }, (_, i) => newId("payment", new Date(start + i * 7)));
    const shuffled = [...ids].sort(() => Math.random() - 0.5);
    expect(shuffled.sort()).toEqual(ids);
  });

  it("sorts across a carry in the time digits", () => {
    const a = newId("payment", new Date(31));
    const b = newId("payment", new Date(32));
    expect(a < b).toBe(true);
  });

  it("round-trips the creation time", () => {
    const at = new Date("2026-11-21T10:11:12.345Z");
    expect(idTime(newId("event", at)).toISOString()).toBe(at.toISOString());
  });

  it("does not repeat within the same millisecond, and sorts there in the order made", () => {
    const at = new Date();
    const ids = Array.from({ length: 10_000 }, (_, i) => newId(i % 2 ? "payment" : "refund", at));
    expect(new Set(ids).size).toBe(10_000);
    const payments = ids.filter((id) => id.startsWith("pay_"));
    expect([...payments].sort()).toEqual(payments);
    // Each a random step (up to 2^40) on from the last, not the next number: a neighbour's id is not guessed.
    const value = (id: string) => [...id.slice(-16)].reduce((n, c) => n * 32n + BigInt("0123456789abcdefghjkmnpqrstvwxyz".indexOf(c)), 0n);
    const steps = ids.slice(1, 200).map((id, i) => value(id) - value(ids[i]!));
    expect(steps.every((d) => d >= 1n && d <= 2n ** 40n + 1n)).toBe(true);
    expect(steps.filter((d) => d > 2n ** 20n).length).toBeGreaterThan(190);
  });

  it("rejects ids of another kind or shape", () => {
    const id = newId("payment");
    expect(isId("refund", id)).toBe(false);
    expect(isId("payment", id.toUpperCase())).toBe(false);
    expect(isId("payment", `${id}x`)).toBe(false);
    expect(isId("payment", "pay_")).toBe(false);
  });
});

describe("randomSecret", () => {
  it("is long and varied", () => {
    const a = randomSecret();
    expect(a).toMatch(/^[0-9a-z]{32}$/);
    expect(randomSecret()).not.toBe(a);
  });
});
