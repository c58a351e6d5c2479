import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "@/server/log";
import { setEnv } from "@/server/testing/env";
import { authOptions } from "./options";

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  vi.restoreAllMocks();
});

describe("next-auth's messages", () => {
  it("go to the service's log, without the NEXTAUTH_URL warning that a dashboard on its own address would always raise", () => {
    restore = setEnv({ NEXTAUTH_SECRET: "s".repeat(32) });
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    const error = vi.spyOn(log, "error").mockImplementation(() => {});
    const logger = authOptions().logger!;
    logger.warn!("NEXTAUTH_URL");
    expect(warn).not.toHaveBeenCalled();
    logger.warn!("DEBUG_ENABLED");
    expect(warn).toHaveBeenCalledWith("next-auth warning", { code: "DEBUG_ENABLED" });
    logger.error!("JWT_SESSION_ERROR", { error: new Error("decryption failed"), message: "x" });
    expect(error).toHaveBeenCalledWith("next-auth error", { code: "JWT_SESSION_ERROR", error: new Error("decryption failed") });
  });
});
