import { describe, expect, it, vi } from "vitest";
import { ProviderUnavailableError } from "@/server/providers/port";
import { isServiceError, promptLimitReached, ServiceError } from "./errors";

describe("errors thrown by another copy of their module", () => {
  // A production build can load a module twice (server actions and route handlers are separate
  // layers), and singletons on globalThis throw the other copy's classes.
  it("are still recognised: ServiceError and ProviderUnavailableError go by brand", async () => {
    vi.resetModules();
    const copy = await import("./errors");
    const portCopy = await import("@/server/providers/port");
    expect(copy.ServiceError).not.toBe(ServiceError);
    expect(portCopy.ProviderUnavailableError).not.toBe(ProviderUnavailableError);

    const foreign = new copy.ServiceError("link_used", "Used.");
    expect(foreign instanceof ServiceError).toBe(true);
    expect(isServiceError(foreign)).toBe(true);
    expect(new portCopy.ProviderUnavailableError("down") instanceof ProviderUnavailableError).toBe(true);

    expect(new Error("x") instanceof ServiceError).toBe(false);
    expect(new Error("x") instanceof ProviderUnavailableError).toBe(false);
    expect(new ServiceError("link_used", "Used.") instanceof ProviderUnavailableError).toBe(false);
  });
});

describe("promptLimitReached", () => {
  it("says a wait of the hour's budget in minutes, as a customer reads it, and a short one in seconds", () => {
    const words = (seconds: number) => promptLimitReached(seconds).message.replace(/^.*Wait /, "");
    expect(words(1)).toBe("a second before trying again.");
    expect(words(45)).toBe("45 seconds before trying again.");
    expect(words(119)).toBe("119 seconds before trying again.");
    expect(words(120)).toBe("2 minutes before trying again.");
    expect(words(3_541)).toBe("60 minutes before trying again.");
    expect(promptLimitReached(3_541).retryAfterSeconds).toBe(3_541);
  });
});
