/**
 * Page speed of the hosted pages as a customer's cheap Android phone on a slow mobile network sees
 * them: cold loads in Chromium with DevTools' "Slow 4G" network and a 4× CPU slowdown.
 *
 * Per page it reports the Largest Contentful Paint (median and max over the runs, and which element
 * it was) and the first-load JavaScript: the external scripts the page fetched by its load event,
 * in bytes on the wire (compressed, response headers included, as DevTools counts "transferred")
 * and decoded. Bytes do not depend on the throttling, so they are counted in the same throttled
 * loads; every run must agree, and a run that does not is reported. Scripts fetched after the load
 * event (lazy chunks) are counted apart and are not first-load JavaScript. Inline scripts (the RSC
 * payload in the HTML) are part of the document, not of these figures.
 *
 * The JavaScript budget is a ratio to an empty page of the same build (the App Router's own
 * runtime): what a page adds on top, not what Next.js costs.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chromium, type Browser, type CDPSession } from "@playwright/test";

export const JS_RATIO_BUDGET = 1.15;
export const LCP_BUDGET_MS = 2_000;
const DEFAULT_RUNS = 5;
/** After the load event: hydration of a client island runs late on a 4× slower CPU and may paint. */
const DEFAULT_SETTLE_MS = 1_500;
export const CPU_SLOWDOWN = 4;

/**
 * Chrome DevTools' "Slow 4G" preset (named "Fast 3G" until May 2024), exactly as DevTools sends it:
 * ChromeDevTools/devtools-frontend, front_end/core/sdk/NetworkManager.ts, `Slow4GConditions`:
 * download 1.6 * 1000 * 1000 / 8 * .9, upload 750 * 1000 / 8 * .9 (bytes/s), latency 150 * 3.75 ms;
 * its NetworkManager.test.ts expects { latency: 562.5, downloadThroughput: 180000,
 * uploadThroughput: 84375, connectionType: cellular4g } on Network.emulateNetworkConditions.
 */
export const SLOW_4G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9,
  connectionType: "cellular4g",
} as const;

/** A mid-range Android phone (Pixel 7's screen). */
const VIEWPORT = { width: 412, height: 915 };
const DEVICE_SCALE_FACTOR = 2.625;

const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

/** Installed before any page script: keeps the latest LCP candidate and a description of its element. */
const LCP_OBSERVER = `(() => {
  const state = { startTime: null, element: null, entries: 0 };
  Object.defineProperty(window, "__benchLcp", { value: state });
  const describe = (e) => {
    const el = e.element;
    if (el) {
      const text = (el.textContent || "").replace(/\\s+/g, " ").trim();
      return "<" + el.tagName.toLowerCase() + ">" + (text ? " " + JSON.stringify(text.length > 40 ? text.slice(0, 40) + "…" : text) : "");
    }
    return e.url ? "image " + e.url : null;
  };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        state.startTime = e.startTime;
        state.element = describe(e);
        state.entries++;
      }
    }).observe({ type: "largest-contentful-paint", buffered: true });
  } catch {}
})();`;

export type PageSpec = { name: string; path: string };
export type JsBytes = { transferred: number; decoded: number; scripts: number };
export type PageLoad = {
  status: number;
  /** ms from navigation start; null when nothing contentful was painted. */
  lcp: number | null;
  lcpElement: string | null;
  fcp: number | null;
  /** The document's request to its response headers, ms. */
  ttfb: number | null;
  /** Navigation start to the load event, ms. */
  load: number;
  /** External scripts requested by the load event. */
  js: JsBytes;
  /** External scripts requested after it. */
  lateJs: JsBytes;
  document: { transferred: number; decoded: number };
};
export type PageResult = {
  name: string;
  path: string;
  /** The answer to a plain GET before the browser runs (it also warms the server up). */
  checked: number;
  /** Why the page could not be measured (it did not answer 200); null when it was. */
  unavailable: string | null;
  runs: PageLoad[];
  lcpMedian: number | null;
  lcpMax: number | null;
  /** The element of the median run's LCP. */
  lcpElement: string | null;
  /** Median over the runs (they should all agree). */
  js: JsBytes;
  /** max − min of transferred first-load bytes over the runs. */
  jsSpread: number;
  /** page / baseline; null for the baseline itself or when unavailable. */
  ratio: { transferred: number; decoded: number } | null;
  /** Against JS_RATIO_BUDGET (transferred) and LCP_BUDGET_MS (median); false when unmeasured. */
  meets: { js: boolean; lcp: boolean };
};
export type PagesReport = {
  browser: string;
  conditions: string;
  runs: number;
  baseline: PageResult;
  pages: PageResult[];
};

export type MeasureOptions = {
  baseUrl: string;
  pages: PageSpec[];
  baselinePath: string;
  runs?: number;
  settleMs?: number;
  log?: (s: string) => void;
};

export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function measurePages(opts: MeasureOptions): Promise<PagesReport> {
  const runs = Math.max(1, opts.runs ?? DEFAULT_RUNS);
  const settleMs = opts.settleMs ?? DEFAULT_SETTLE_MS;
  const log = opts.log ?? (() => {});
  const specs: PageSpec[] = [{ name: "baseline", path: opts.baselinePath }, ...opts.pages];

  // The server renders each page once before the clock starts (a production server is warm), and
  // a page that does not answer 200 is reported as unavailable rather than measured as an error page.
  const unavailable = new Map<string, string>();
  const checked = new Map<string, number>();
  for (const p of specs) {
    const res = await fetch(new URL(p.path, opts.baseUrl), { redirect: "manual", signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    checked.set(p.name, res.status);
    if (res.status !== 200) unavailable.set(p.name, `HTTP ${res.status}`);
  }
  if (unavailable.has("baseline")) throw new Error(`baseline ${opts.baselinePath} answered ${unavailable.get("baseline")}`);

  const browser = await chromium.launch({ executablePath: chromiumPath(), args: LAUNCH_ARGS });
  try {
    const version = browser.version();
    // Chrome's reduced user agent for Android, with this browser's major version.
    const userAgent = `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version.split(".")[0]}.0.0.0 Mobile Safari/537.36`;
    const loads = new Map<string, PageLoad[]>(specs.map((p) => [p.name, []]));
    const measured = specs.filter((p) => !unavailable.has(p.name));
    // Pages take turns run by run, so that a change in the shared machine's load hits them alike.
    for (let run = 1; run <= runs; run++) {
      for (const p of measured) {
        const l = await coldLoad(browser, new URL(p.path, opts.baseUrl).href, userAgent, settleMs);
        loads.get(p.name)!.push(l);
        log(
          `${p.name} run ${run}/${runs}: HTTP ${l.status}, LCP ${l.lcp === null ? "none" : `${l.lcp.toFixed(0)} ms`} ${l.lcpElement ?? ""}, ` +
            `load ${l.load.toFixed(0)} ms, JS ${l.js.scripts} scripts ${l.js.transferred} B transferred / ${l.js.decoded} B decoded` +
            (l.lateJs.scripts ? ` (+${l.lateJs.scripts} after load, ${l.lateJs.transferred} B)` : ""),
        );
      }
    }

    const summarize = (p: PageSpec, base: PageResult | null): PageResult => {
      const why = unavailable.get(p.name) ?? null;
      const all = loads.get(p.name)!;
      const bad = all.filter((l) => l.status !== 200);
      const reason = why ?? (bad.length ? `${bad.length} of ${all.length} loads answered ${[...new Set(bad.map((l) => l.status))].join("/")}` : null);
      const ok = all.filter((l) => l.status === 200);
      const lcps = ok.map((l) => l.lcp).filter((v): v is number => v !== null);
      // A load that painted nothing contentful has no LCP: it counts as a miss, not as fast.
      const lcpMedian = lcps.length && lcps.length === ok.length ? median(lcps) : null;
      const lcpMax = lcps.length ? Math.max(...lcps) : null;
      const byLcp = [...ok].sort((a, b) => (a.lcp ?? Infinity) - (b.lcp ?? Infinity));
      const mid = byLcp[Math.floor((byLcp.length - 1) / 2)];
      const js: JsBytes = ok.length
        ? { transferred: median(ok.map((l) => l.js.transferred)), decoded: median(ok.map((l) => l.js.decoded)), scripts: median(ok.map((l) => l.js.scripts)) }
        : { transferred: 0, decoded: 0, scripts: 0 };
      const spread = ok.length ? Math.max(...ok.map((l) => l.js.transferred)) - Math.min(...ok.map((l) => l.js.transferred)) : 0;
      const ratio = base && reason === null && base.js.transferred > 0 ? { transferred: js.transferred / base.js.transferred, decoded: js.decoded / base.js.decoded } : null;
      return {
        name: p.name,
        path: p.path,
        checked: checked.get(p.name)!,
        unavailable: reason,
        runs: all,
        lcpMedian,
        lcpMax,
        lcpElement: mid?.lcpElement ?? null,
        js,
        jsSpread: spread,
        ratio,
        meets: {
          js: reason === null && ratio !== null && ratio.transferred <= JS_RATIO_BUDGET,
          lcp: reason === null && lcpMedian !== null && lcpMedian <= LCP_BUDGET_MS,
        },
      };
    };
    const baseline = summarize(specs[0]!, null);
    if (baseline.unavailable) throw new Error(`baseline ${opts.baselinePath}: ${baseline.unavailable}`);
    return {
      browser: `Chromium ${version}`,
      conditions:
        `Slow 4G (DevTools preset: ${SLOW_4G.latency} ms latency, ${((SLOW_4G.downloadThroughput * 8) / 1e6).toFixed(2)} Mbit/s down, ` +
        `${((SLOW_4G.uploadThroughput * 8) / 1e3).toFixed(0)} kbit/s up), CPU ${CPU_SLOWDOWN}× slower than this machine, ` +
        `${VIEWPORT.width}×${VIEWPORT.height} @${DEVICE_SCALE_FACTOR}x mobile viewport, cold cache, ${runs} runs per page, LCP read ${settleMs} ms after load`,
      runs,
      baseline,
      pages: specs.slice(1).map((p) => summarize(p, baseline)),
    };
  } finally {
    await browser.close();
  }
}

type Req = { script: boolean; document: boolean; sentAt: number; respondedAt: number; transferred: number; decoded: number; done: boolean };

/** One cold load in a fresh context: empty cache, throttled network and CPU. */
async function coldLoad(browser: Browser, url: string, userAgent: string, settleMs: number): Promise<PageLoad> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: DEVICE_SCALE_FACTOR, isMobile: true, hasTouch: true, userAgent });
  try {
    await context.addInitScript({ content: LCP_OBSERVER });
    const page = await context.newPage();
    const cdp: CDPSession = await context.newCDPSession(page);
    const requests = new Map<string, Req>();
    let loadAt = Number.POSITIVE_INFINITY;
    cdp.on("Network.requestWillBeSent", (e) => {
      // A redirect reuses the request id: the new hop replaces the old one.
      requests.set(e.requestId, { script: e.type === "Script", document: e.type === "Document", sentAt: e.timestamp, respondedAt: Number.NaN, transferred: 0, decoded: 0, done: false });
    });
    cdp.on("Network.responseReceived", (e) => {
      const r = requests.get(e.requestId);
      if (!r) return;
      r.respondedAt = e.timestamp;
      if (e.type === "Script" || /javascript|ecmascript/i.test(e.response.mimeType)) r.script = true;
    });
    cdp.on("Network.dataReceived", (e) => {
      const r = requests.get(e.requestId);
      if (r) r.decoded += e.dataLength;
    });
    cdp.on("Network.loadingFinished", (e) => {
      const r = requests.get(e.requestId);
      if (r) {
        r.transferred = e.encodedDataLength;
        r.done = true;
      }
    });
    cdp.on("Page.loadEventFired", (e) => {
      loadAt = Math.min(loadAt, e.timestamp);
    });
    await cdp.send("Page.enable");
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", { ...SLOW_4G });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });

    const response = await page.goto(url, { waitUntil: "load", timeout: 120_000 });
    await page.waitForTimeout(settleMs);
    const timing = (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const fcp = performance.getEntriesByName("first-contentful-paint")[0];
      return {
        lcp: window.__benchLcp.startTime,
        element: window.__benchLcp.element,
        fcp: fcp ? fcp.startTime : null,
        load: nav ? nav.loadEventStart : null,
      };
    })()`)) as { lcp: number | null; element: string | null; fcp: number | null; load: number | null };

    const sum = (rs: Req[]): JsBytes => ({ transferred: rs.reduce((s, r) => s + r.transferred, 0), decoded: rs.reduce((s, r) => s + r.decoded, 0), scripts: rs.length });
    const scripts = [...requests.values()].filter((r) => r.script && r.done);
    const doc = [...requests.values()].find((r) => r.document);
    return {
      status: response?.status() ?? 0,
      lcp: timing.lcp,
      lcpElement: timing.element,
      fcp: timing.fcp,
      // From the protocol: Navigation Timing's responseStart leaves out the emulated latency.
      ttfb: doc ? (doc.respondedAt - doc.sentAt) * 1000 : null,
      load: timing.load ?? Number.NaN,
      js: sum(scripts.filter((r) => r.sentAt <= loadAt)),
      lateJs: sum(scripts.filter((r) => r.sentAt > loadAt)),
      document: { transferred: doc?.transferred ?? 0, decoded: doc?.decoded ?? 0 },
    };
  } finally {
    await context.close();
  }
}

/** Bytes as DevTools shows them (1 kB = 1000 B). */
export const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** What the table cannot hold: LCP elements, unavailable pages, runs that disagree on bytes, lazy scripts. */
export function pageNotes(report: PagesReport): string[] {
  const notes: string[] = [];
  for (const p of [report.baseline, ...report.pages]) {
    if (p.unavailable) {
      notes.push(`${p.name} ${p.path}: not measured, ${p.unavailable}`);
      continue;
    }
    notes.push(`${p.name}: LCP element ${p.lcpElement ?? "none (nothing contentful painted)"}; document ${kB(p.runs[0]?.document.transferred ?? 0)} transferred`);
    if (p.jsSpread > 0) notes.push(`${p.name}: first-load JS differed between runs by ${p.jsSpread} B transferred (median shown)`);
    const late = Math.max(0, ...p.runs.map((r) => r.lateJs.scripts));
    if (late > 0) notes.push(`${p.name}: ${late} more script(s) fetched after the load event (not first-load JS)`);
  }
  return notes;
}

/** A payment link and a checkout session, the two hosted pages' subjects, made through the API. */
export async function createHostedPages(baseUrl: string, testKey: string): Promise<{ linkId: string; sessionId: string }> {
  const post = async (path: string, body: unknown): Promise<{ id: string }> => {
    const res = await fetch(new URL(path, baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${testKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${path}: expected 201, got ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as { id: string };
  };
  const link = await post("/v1/payment_links", { amount: 2500, currency: "USD", description: "Bench: school fees" });
  const session = await post("/v1/checkout_sessions", {
    amount: 2500,
    currency: "USD",
    reference: `bench-${randomBytes(6).toString("hex")}`,
    success_url: "https://example.org/done",
  });
  return { linkId: link.id, sessionId: session.id };
}
