import { notFound, redirect } from "next/navigation";
import { describe, expect, it } from "vitest";
import { logOf, queryFailingWith } from "@/server/testing/log";
import { loggingFaults } from "./faults";

describe("loggingFaults: what a page or route outside /v1 loads", () => {
  it("is given back as it loaded, and nothing is logged", async () => {
    const { result, lines } = await logOf(() => loggingFaults("page could not be loaded", async () => ({ id: "plink_1" })));
    expect(result).toEqual({ ok: true, value: { id: "plink_1" } });
    expect(lines).toEqual([]);
  });

  it("a fault is logged once, as JSON, under the reference it answers with, and without the failed query's parameters", async () => {
    const { result, text, lines } = await logOf(() => loggingFaults("page could not be loaded", () => queryFailingWith("263779876543")));
    expect(result).toEqual({ ok: false, reference: expect.stringMatching(/^req_[0-9a-z]{26}$/) });
    const reference = (result as { reference: string }).reference;
    expect(lines).toMatchObject([
      { level: "error", msg: "page could not be loaded", reference, error: { message: expect.stringMatching(/^Failed query: select /), cause: { message: "division by zero", code: "22012" } } },
    ]);
    expect(text).not.toContain("779876543");
  });

  it("each fault has a reference of its own", async () => {
    const fail = () => loggingFaults("page could not be loaded", async () => Promise.reject(new Error("boom")));
    const { result } = await logOf(async () => [await fail(), await fail()]);
    const [a, b] = result as { reference: string }[];
    expect(a!.reference).not.toBe(b!.reference);
  });

  it("Next's own signals (a page not found, a redirect) go on to Next as they were thrown", async () => {
    const { lines } = await logOf(async () => {
      await expect(loggingFaults("page could not be loaded", async () => notFound())).rejects.toMatchObject({ digest: expect.stringContaining("404") });
      await expect(loggingFaults("page could not be loaded", async () => redirect("/dashboard/sign-in"))).rejects.toMatchObject({ digest: expect.stringMatching(/^NEXT_REDIRECT;/) });
    });
    expect(lines).toEqual([]);
  });
});
