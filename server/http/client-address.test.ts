import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-address";

describe("the client's address", () => {
  it("is unknown without a trusted proxy, whatever the header says", () => {
    expect(clientAddress("203.0.113.9", 0)).toBeNull();
    expect(clientAddress("203.0.113.9, 10.0.0.1", 0)).toBeNull();
  });

  it("is the entry the outermost trusted proxy appended, not one the client wrote", () => {
    // The client sent "1.1.1.1" itself; the load balancer appended the address it saw.
    expect(clientAddress("1.1.1.1, 203.0.113.9", 1)).toBe("203.0.113.9");
    // Two proxies: the CDN appended the client's, the load balancer the CDN's.
    expect(clientAddress("1.1.1.1, 203.0.113.9, 198.51.100.7", 2)).toBe("203.0.113.9");
    expect(clientAddress(" 203.0.113.9 ", 1)).toBe("203.0.113.9");
  });

  it("is unknown when the header is missing, empty, shorter than the proxies or absurd", () => {
    expect(clientAddress(null, 1)).toBeNull();
    expect(clientAddress("", 1)).toBeNull();
    expect(clientAddress(" , ", 1)).toBeNull();
    expect(clientAddress("203.0.113.9", 2)).toBeNull();
    expect(clientAddress("x".repeat(200), 1)).toBeNull();
  });
});
