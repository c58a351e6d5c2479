import { promises as dns } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * SSRF guard for outbound webhooks: a merchant-supplied URL must not reach our own network, the
 * cloud metadata service or anything else that is not the public internet.
 */
export type AddressPolicy = { allowPrivateNetworks: boolean };

export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const defaultResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

type Rule = { family: "ipv4" | "ipv6"; net: string; prefix: number; reason: string; always?: true };

// More specific ranges come first so 0.0.0.0 and ::1 get their own reason. `always` ranges are
// refused even when private networks are allowed: link-local is where cloud metadata lives, and
// the rest can never be a destination.
const RULES: readonly Rule[] = [
  { family: "ipv4", net: "0.0.0.0", prefix: 32, reason: "unspecified address", always: true },
  { family: "ipv4", net: "0.0.0.0", prefix: 8, reason: "reserved address" },
  { family: "ipv4", net: "10.0.0.0", prefix: 8, reason: "private network address (10.0.0.0/8)" },
  { family: "ipv4", net: "100.64.0.0", prefix: 10, reason: "carrier-grade NAT address" },
  { family: "ipv4", net: "127.0.0.0", prefix: 8, reason: "loopback address" },
  { family: "ipv4", net: "169.254.0.0", prefix: 16, reason: "link-local address", always: true },
  { family: "ipv4", net: "172.16.0.0", prefix: 12, reason: "private network address (172.16.0.0/12)" },
  { family: "ipv4", net: "192.0.0.0", prefix: 24, reason: "reserved address" },
  { family: "ipv4", net: "192.0.2.0", prefix: 24, reason: "reserved address" },
  { family: "ipv4", net: "192.168.0.0", prefix: 16, reason: "private network address (192.168.0.0/16)" },
  { family: "ipv4", net: "198.18.0.0", prefix: 15, reason: "reserved address" },
  { family: "ipv4", net: "198.51.100.0", prefix: 24, reason: "reserved address" },
  { family: "ipv4", net: "203.0.113.0", prefix: 24, reason: "reserved address" },
  { family: "ipv4", net: "224.0.0.0", prefix: 4, reason: "multicast address", always: true },
  { family: "ipv4", net: "255.255.255.255", prefix: 32, reason: "broadcast address", always: true },
  { family: "ipv4", net: "240.0.0.0", prefix: 4, reason: "reserved address" },
  { family: "ipv6", net: "::", prefix: 128, reason: "unspecified address", always: true },
  { family: "ipv6", net: "::1", prefix: 128, reason: "loopback address" },
  // Deprecated IPv4-compatible form; some stacks still route it to the embedded IPv4 address.
  { family: "ipv6", net: "::", prefix: 96, reason: "reserved address" },
  { family: "ipv6", net: "100::", prefix: 64, reason: "reserved address" },
  { family: "ipv6", net: "2001:db8::", prefix: 32, reason: "reserved address" },
  { family: "ipv6", net: "fc00::", prefix: 7, reason: "private network address (fc00::/7)" },
  { family: "ipv6", net: "fe80::", prefix: 10, reason: "link-local address", always: true },
  // Deprecated site-local: the IPv6 private range before fc00::/7.
  { family: "ipv6", net: "fec0::", prefix: 10, reason: "private network address (fec0::/10)" },
  { family: "ipv6", net: "ff00::", prefix: 8, reason: "multicast address", always: true },
];

const LISTS = RULES.map((rule) => {
  const list = new BlockList();
  list.addSubnet(rule.net, rule.prefix, rule.family);
  return { rule, list };
});

// IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses reach the embedded IPv4
// address, so that is the one judged.
const EMBEDS_IPV4 = new BlockList();
EMBEDS_IPV4.addSubnet("::ffff:0:0", 96, "ipv6");
EMBEDS_IPV4.addSubnet("64:ff9b::", 96, "ipv6");

/** The eight 16-bit groups of a valid IPv6 literal (zone id dropped, dotted tail folded in). */
function ipv6Groups(ip: string): number[] {
  let text = ip.split("%")[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  if (tail === undefined) return parse(head);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

// The deprecated IPv4-compatible form (::a.b.c.d): reserved, and its embedded address is judged
// too, for the ranges refused always (a stack that still routes it reaches that address).
const COMPATIBLE_IPV4 = new BlockList();
COMPATIBLE_IPV4.addSubnet("::", 96, "ipv6");

function lastFourBytes(ip: string): string {
  const groups = ipv6Groups(ip);
  const hi = groups[6] ?? 0;
  const lo = groups[7] ?? 0;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
}

function embeddedIpv4(ip: string): string | null {
  return EMBEDS_IPV4.check(ip, "ipv6") ? lastFourBytes(ip) : null;
}

/** Null when `ip` may be a webhook destination, otherwise a short reason ("loopback address"). */
export function addressRefusal(ip: string, policy: AddressPolicy): string | null {
  const version = isIP(ip);
  if (version === 0) return "invalid address";
  if (version === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4 !== null) return addressRefusal(v4, policy);
    if (COMPATIBLE_IPV4.check(ip, "ipv6")) {
      const always = addressRefusal(lastFourBytes(ip), { allowPrivateNetworks: true });
      if (always) return always;
    }
  }
  const family = version === 4 ? "ipv4" : "ipv6";
  const hit = LISTS.find(({ rule, list }) => rule.family === family && list.check(ip, family));
  if (!hit || (policy.allowPrivateNetworks && !hit.rule.always)) return null;
  return hit.rule.reason;
}

/** "Webhook URLs must not point to a loopback address: 127.0.0.1." */
export const refusalSentence = (reason: string, detail: string) =>
  `Webhook URLs must not point to ${/^[aeiou]/.test(reason) ? "an" : "a"} ${reason}: ${detail}.`;

/** First refused address among `addresses`, as a sentence, or null when all may be used. */
function refuseAny(hostname: string, addresses: readonly string[], policy: AddressPolicy): string | null {
  for (const address of addresses) {
    const reason = addressRefusal(address, policy);
    if (reason) return refusalSentence(reason, `${hostname} resolves to ${address}`);
  }
  return null;
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Validates a webhook URL when it is saved. The connect-time check in `guardedLookup` still
 * matters: a host may resolve differently by the time a delivery is made.
 */
export async function checkWebhookUrl(
  raw: string,
  opts: { livemode: boolean; policy: AddressPolicy; resolve?: Resolver },
): Promise<{ ok: true; url: URL } | { ok: false; reason: string }> {
  const fail = (reason: string) => ({ ok: false as const, reason });
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return fail(`Webhook URLs must be at most ${MAX_WEBHOOK_URL_LENGTH} characters long.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail("The webhook URL is not a valid absolute URL.");
  }
  if (opts.livemode ? url.protocol !== "https:" : url.protocol !== "https:" && url.protocol !== "http:") {
    return fail(opts.livemode ? "Live-mode webhook URLs must use https." : "Webhook URLs must use http or https.");
  }
  if (url.username || url.password) return fail("Webhook URLs must not contain credentials.");
  if (!url.hostname) return fail("Webhook URLs must have a host name.");

  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host)) {
    const reason = addressRefusal(host, opts.policy);
    return reason ? fail(refusalSentence(reason, host)) : { ok: true, url };
  }
  let addresses: string[];
  try {
    addresses = (await (opts.resolve ?? defaultResolver)(host)).map((a) => a.address);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return fail(`The host name ${host} does not resolve.`);
  const refusal = refuseAny(host, addresses, opts.policy);
  return refusal ? fail(refusal) : { ok: true, url };
}

export class WebhookAddressRefused extends Error {
  readonly code = "WEBHOOK_ADDRESS_REFUSED";

  constructor(message: string) {
    super(message);
    this.name = "WebhookAddressRefused";
  }
}

function wantedFamily(family: unknown): 4 | 6 | undefined {
  if (family === 4 || family === "IPv4") return 4;
  if (family === 6 || family === "IPv6") return 6;
  return undefined;
}

/**
 * A `lookup` for http(s) agents that refuses at connect time, after the address is known, so a
 * host that resolved public when the URL was saved and private now (DNS rebinding) is refused.
 * Every resolved address is judged, not only the family asked for, so the rule matches
 * `checkWebhookUrl` exactly.
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = defaultResolver): LookupFunction {
  return (hostname, options, callback) => {
    const family = wantedFamily(options.family);
    Promise.resolve(hostname).then(resolve).then(
      (all) => {
        const refusal = refuseAny(hostname, all.map((a) => a.address), policy);
        if (refusal) return callback(new WebhookAddressRefused(refusal), "");
        const usable = family ? all.filter((a) => a.family === family) : all;
        if (usable.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`No IPv${family} address for ${hostname}`);
          err.code = "ENOTFOUND";
          return callback(err, "");
        }
        if (options.all) return callback(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ""),
    );
  };
}
