import { describe, expect, it } from "vitest";
import { attemptReference, orderTitle } from "./checkout";

describe("a checkout's words", () => {
  it("heads the page with the order's reference, saying 'Order' once", () => {
    expect(orderTitle("INV-1001")).toBe("Order INV-1001");
    expect(orderTitle("1001")).toBe("Order 1001");
    expect(orderTitle("order-1001")).toBe("order-1001");
    expect(orderTitle("Order #1001")).toBe("Order #1001");
    expect(orderTitle("ORDER_7")).toBe("Order ORDER_7");
    expect(orderTitle("orders-7")).toBe("Order orders-7");
  });

  it("numbers each attempt after the session's reference", () => {
    expect(attemptReference("order-7", 2)).toBe("order-7#2");
  });
});
