import type { LookupAddress, LookupOptions } from "node:dns";
import { describe, expect, it } from "vitest";
import { addressRefusal, checkWebhookUrl, guardedLookup, type Resolver } from "./address-guard";

const strict = { allowPrivateNetworks: false };
const relaxed = { allowPrivateNetworks: true };

/** A resolver from a fixed table; unknown names fail the way getaddrinfo does. */
const fakeResolver =
  (table: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const resolve = fakeResolver({
  "hooks.example.com": ["93.184.215.14"],
  "v6.example.com": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "internal.example.com": ["10.0.0.5"],
  "split.example.com": ["93.184.215.14", "192.168.0.10"],
  "metadata.example.com": ["169.254.169.254"],
  "empty.example.com": [],
});

describe("addressRefusal", () => {
  it.each([
    ["127.0.0.1", "loopback address"],
    ["0.0.0.0", "unspecified address"],
    ["0.1.2.3", "reserved address"],
    ["10.1.2.3", "private network address (10.0.0.0/8)"],
    ["172.31.255.255", "private network address (172.16.0.0/12)"],
    ["192.168.1.1", "private network address (192.168.0.0/16)"],
    ["100.64.0.1", "carrier-grade NAT address"],
    ["169.254.169.254", "link-local address"],
    ["192.0.0.8", "reserved address"],
    ["192.0.2.1", "reserved address"],
    ["198.19.0.1", "reserved address"],
    ["198.51.100.7", "reserved address"],
    ["203.0.113.9", "reserved address"],
    ["224.0.0.251", "multicast address"],
    ["240.0.0.1", "reserved address"],
    ["255.255.255.255", "broadcast address"],
    ["::", "unspecified address"],
    ["::1", "loopback address"],
    ["::ffff:127.0.0.1", "loopback address"],
    ["::ffff:7f00:1", "loopback address"],
    ["::ffff:a9fe:a9fe", "link-local address"],
    ["64:ff9b::10.0.0.1", "private network address (10.0.0.0/8)"],
    ["::7f00:1", "reserved address"],
    ["100::1", "reserved address"],
    ["2001:db8::1", "reserved address"],
    ["fd00::1", "private network address (fc00::/7)"],
    ["fe80::1", "link-local address"],
    ["fe80::1%eth0", "link-local address"],
    ["ff02::1", "multicast address"],
    ["not-an-ip", "invalid address"],
  ])("refuses %s: %s", (ip, reason) => {
    expect(addressRefusal(ip, strict)).toBe(reason);
  });

  it.each([
    "93.184.215.14",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "169.255.0.1",
    "2606:4700::1111",
    "::ffff:93.184.215.14",
    "64:ff9b::8.8.8.8",
  ])("allows the public address %s", (ip) => {
    expect(addressRefusal(ip, strict)).toBeNull();
  });

  it("with private networks allowed, still refuses link-local, multicast and unspecified", () => {
    for (const ip of ["127.0.0.1", "10.1.2.3", "192.168.1.1", "::1", "fd00::1", "::ffff:127.0.0.1", "198.18.0.1"]) {
      expect(addressRefusal(ip, relaxed), ip).toBeNull();
    }
    expect(addressRefusal("169.254.169.254", relaxed)).toBe("link-local address");
    expect(addressRefusal("::ffff:169.254.169.254", relaxed)).toBe("link-local address");
    // The IPv4-compatible form too, in any spelling; one embedding an address allowed here is just reserved.
    expect(addressRefusal("::169.254.169.254", relaxed)).toBe("link-local address");
    expect(addressRefusal("::a9fe:a9fe", relaxed)).toBe("link-local address");
    expect(addressRefusal("::a9fe:a9fe", { allowPrivateNetworks: false })).toBe("link-local address");
    expect(addressRefusal("::10.0.0.1", relaxed)).toBeNull();
    expect(addressRefusal("::10.0.0.1", { allowPrivateNetworks: false })).toBe("reserved address");
    expect(addressRefusal("fe80::1", relaxed)).toBe("link-local address");
    expect(addressRefusal("224.0.0.1", relaxed)).toBe("multicast address");
    expect(addressRefusal("ff02::1", relaxed)).toBe("multicast address");
    expect(addressRefusal("0.0.0.0", relaxed)).toBe("unspecified address");
    expect(addressRefusal("::", relaxed)).toBe("unspecified address");
  });
});

describe("checkWebhookUrl", () => {
  const check = (raw: string, policy = strict, livemode = false) => checkWebhookUrl(raw, { livemode, policy, resolve });

  it.each([
    ["http://127.0.0.1/hook", "loopback address: 127.0.0.1"],
    ["http://[::1]/hook", "loopback address: ::1"],
    ["http://[::ffff:127.0.0.1]/hook", "loopback address: ::ffff:7f00:1"],
    ["http://0.0.0.0/hook", "unspecified address: 0.0.0.0"],
    ["http://10.1.2.3/hook", "private network address (10.0.0.0/8): 10.1.2.3"],
    ["http://172.16.5.4/hook", "private network address (172.16.0.0/12): 172.16.5.4"],
    ["http://192.168.1.1/hook", "private network address (192.168.0.0/16): 192.168.1.1"],
    ["http://100.64.0.1/hook", "carrier-grade NAT address: 100.64.0.1"],
    ["http://169.254.169.254/latest/meta-data", "link-local address: 169.254.169.254"],
    ["http://[fd00::1]/hook", "private network address (fc00::/7): fd00::1"],
    // WHATWG URL parsing turns decimal, octal and hex hosts into the dotted form before we look.
    ["http://2130706433/", "loopback address: 127.0.0.1"],
    ["http://0177.0.0.1/", "loopback address: 127.0.0.1"],
    ["http://0x7f.1/", "loopback address: 127.0.0.1"],
    ["https://internal.example.com/hook", "private network address (10.0.0.0/8): internal.example.com resolves to 10.0.0.5"],
    ["https://split.example.com/hook", "private network address (192.168.0.0/16): split.example.com resolves to 192.168.0.10"],
    ["https://metadata.example.com/", "link-local address: metadata.example.com resolves to 169.254.169.254"],
  ])("refuses %s", async (raw, detail) => {
    const result = await check(raw);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(detail) });
    if (!result.ok) expect(result.reason).toMatch(/^Webhook URLs must not point to an? .+\.$/);
  });

  it.each(["https://93.184.215.14/hook", "https://hooks.example.com/hook?x=1", "https://v6.example.com/", "https://[2606:4700::1111]/"])(
    "allows %s",
    async (raw) => {
      const result = await check(raw, strict, true);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.url.href).toBe(new URL(raw).href);
    },
  );

  it("refuses localhost through the real resolver", async () => {
    const result = await checkWebhookUrl("http://localhost:3000/hook", { livemode: false, policy: strict });
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/loopback address: localhost resolves to (127\.0\.0\.1|::1)\./) });
  });

  it("refuses host names that do not resolve", async () => {
    expect(await check("https://nowhere.example.com/")).toEqual({ ok: false, reason: expect.stringContaining("does not resolve") });
    expect(await check("https://empty.example.com/")).toEqual({ ok: false, reason: expect.stringContaining("does not resolve") });
  });

  it("with private networks allowed, accepts loopback and 10/8 but not link-local", async () => {
    expect((await check("http://127.0.0.1:3000/hook", relaxed)).ok).toBe(true);
    expect((await check("http://10.1.2.3/hook", relaxed)).ok).toBe(true);
    expect((await check("https://internal.example.com/hook", relaxed)).ok).toBe(true);
    expect(await check("http://169.254.169.254/", relaxed)).toEqual({ ok: false, reason: expect.stringContaining("link-local") });
    expect(await check("http://[fe80::1]/", relaxed)).toEqual({ ok: false, reason: expect.stringContaining("link-local") });
    expect(await check("https://metadata.example.com/", relaxed)).toEqual({ ok: false, reason: expect.stringContaining("link-local") });
  });

  it("requires https in live mode and allows http in test mode", async () => {
    expect(await check("http://hooks.example.com/hook", strict, true)).toEqual({
      ok: false,
      reason: "Live-mode webhook URLs must use https.",
    });
    expect((await check("http://hooks.example.com/hook", strict, false)).ok).toBe(true);
    expect((await check("https://hooks.example.com/hook", strict, true)).ok).toBe(true);
  });

  it.each([
    ["credentials", "https://user:pass@hooks.example.com/hook", "must not contain credentials"],
    ["a user name alone", "https://user@hooks.example.com/hook", "must not contain credentials"],
    ["ftp", "ftp://hooks.example.com/hook", "must use http or https"],
    ["javascript:", "javascript:alert(1)", "must use http or https"],
    ["garbage", "not a url", "not a valid absolute URL"],
    ["a relative path", "/hooks", "not a valid absolute URL"],
    ["an empty string", "", "not a valid absolute URL"],
    ["an overlong URL", `https://hooks.example.com/${"a".repeat(2048)}`, "at most 2048 characters"],
  ])("refuses %s", async (_name, raw, reason) => {
    expect(await check(raw)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  it("accepts a URL of exactly 2048 characters", async () => {
    const base = "https://hooks.example.com/";
    expect((await check(base + "a".repeat(2048 - base.length))).ok).toBe(true);
  });
});

describe("guardedLookup", () => {
  type Outcome = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };
  const lookup = (hostname: string, options: LookupOptions, policy = strict) =>
    new Promise<Outcome>((done) => {
      guardedLookup(policy, resolve)(hostname, options, (err, address, family) => done({ err, address, family }));
    });

  it("answers one address, or all of them when asked", async () => {
    expect(await lookup("hooks.example.com", {})).toEqual({ err: null, address: "93.184.215.14", family: 4 });
    expect(await lookup("split.example.com", { all: true }, relaxed)).toEqual({
      err: null,
      address: [
        { address: "93.184.215.14", family: 4 },
        { address: "192.168.0.10", family: 4 },
      ],
      family: undefined,
    });
  });

  it("honours the family asked for", async () => {
    const dual = fakeResolver({ "dual.example.com": ["93.184.215.14", "2606:4700::1111"] });
    const ask = (options: LookupOptions) =>
      new Promise<Outcome>((done) => guardedLookup(strict, dual)("dual.example.com", options, (err, address, family) => done({ err, address, family })));
    expect(await ask({ family: 6 })).toEqual({ err: null, address: "2606:4700::1111", family: 6 });
    expect(await ask({ family: 4, all: true })).toEqual({ err: null, address: [{ address: "93.184.215.14", family: 4 }], family: undefined });
    expect((await lookup("hooks.example.com", { family: 6 })).err?.code).toBe("ENOTFOUND");
  });

  it("refuses when any resolved address is refused", async () => {
    for (const options of [{}, { all: true }]) {
      const { err } = await lookup("split.example.com", options);
      expect(err?.code).toBe("WEBHOOK_ADDRESS_REFUSED");
      expect(err?.message).toBe(
        "Webhook URLs must not point to a private network address (192.168.0.0/16): split.example.com resolves to 192.168.0.10.",
      );
    }
  });

  it("passes resolver failures through", async () => {
    expect((await lookup("nowhere.example.com", {})).err?.code).toBe("ENOTFOUND");
  });
});
