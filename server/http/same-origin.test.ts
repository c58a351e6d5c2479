import { describe, expect, it } from "vitest";
import { originMatchesHost, sentFromAnotherSite } from "./same-origin";

const h = (headers: Record<string, string>) => new Headers(headers);

describe("a POST from this service's own pages", () => {
  it("is one whose Origin names the host it was sent to, or the host a proxy says it was sent to", () => {
    expect(originMatchesHost("http://127.0.0.1:3000", h({ host: "127.0.0.1:3000" }))).toBe(true);
    expect(originMatchesHost("https://pay.mari.example", h({ host: "10.0.0.5:3000", "x-forwarded-host": "pay.mari.example" }))).toBe(true);
    expect(originMatchesHost("https://pay.mari.example", h({ host: "pay.mari.example:8443" }))).toBe(false);
    expect(originMatchesHost("https://evil.example", h({ host: "pay.mari.example" }))).toBe(false);
    expect(originMatchesHost("null", h({ host: "pay.mari.example" }))).toBe(false);
    expect(originMatchesHost("https://pay.mari.example", h({}))).toBe(false);
  });

  it("is told by Sec-Fetch-Site first, then by Origin; a GET is never refused", () => {
    expect(sentFromAnotherSite("POST", h({ "sec-fetch-site": "same-origin", origin: "https://evil.example", host: "a.example" }))).toBe(false);
    expect(sentFromAnotherSite("POST", h({ "sec-fetch-site": "same-site", host: "a.example" }))).toBe(true);
    expect(sentFromAnotherSite("POST", h({ "sec-fetch-site": "cross-site", host: "a.example" }))).toBe(true);
    // A browser that sends no Sec-Fetch-Site (older Safari) behind a proxy: its Origin against the forwarded host.
    expect(sentFromAnotherSite("POST", h({ origin: "https://a.example", host: "localhost:3000", "x-forwarded-host": "a.example" }))).toBe(false);
    expect(sentFromAnotherSite("POST", h({ origin: "https://evil.example", host: "a.example" }))).toBe(true);
    expect(sentFromAnotherSite("POST", h({ origin: "null", host: "a.example" }))).toBe(true);
    expect(sentFromAnotherSite("POST", h({ host: "a.example" }))).toBe(false);
    expect(sentFromAnotherSite("GET", h({ "sec-fetch-site": "cross-site", host: "a.example" }))).toBe(false);
  });
});
