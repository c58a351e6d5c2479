import { afterEach, describe, expect, it } from "vitest";
import { closeDb, overrideDbForTests } from "@/db/client";
import { GET } from "@/app/api/health/route";

describe("GET /api/health", () => {
  afterEach(async () => {
    await closeDb();
  });

  it("answers 200 when the database answers", async () => {
    const res = await GET();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", database: "ok" });
    expect(res.headers.get("request-id")).toMatch(/^req_[0-9a-z]{26}$/);
  });

  it("answers 503 when the database cannot be reached", async () => {
    overrideDbForTests(async () => {
      throw new Error("connection refused");
    });
    const res = await GET();
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "unavailable", database: "unreachable" });
  });
});
