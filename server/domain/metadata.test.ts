import { describe, expect, it } from "vitest";
import { METADATA_MAX_KEYS, refundMetadata } from "./metadata";

const keys = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, "v"]));

describe("a refund's metadata", () => {
  it("is its payment's, with the refund's own keys on top", () => {
    expect(refundMetadata({ order_id: "1001", channel: "web" }, { channel: "phone", ticket: "T-9" })).toEqual({ order_id: "1001", channel: "phone", ticket: "T-9" });
    expect(refundMetadata({ order_id: "1001" }, undefined)).toEqual({ order_id: "1001" });
    expect(refundMetadata({}, {})).toEqual({});
  });

  it("holds at most the limit's keys together, counting a shared key once", () => {
    expect(refundMetadata(keys(30, "p"), keys(20, "r"))).not.toBeNull();
    expect(refundMetadata(keys(30, "p"), keys(21, "r"))).toBeNull();
    expect(Object.keys(refundMetadata(keys(METADATA_MAX_KEYS, "k"), keys(METADATA_MAX_KEYS, "k"))!)).toHaveLength(METADATA_MAX_KEYS);
  });
});
