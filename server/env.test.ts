import { afterEach, describe, expect, it } from "vitest";
import { env } from "./env";
import { setEnv } from "./testing/env";

describe("env", () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("builds the public origin from the port the server listens on when none is given", () => {
    restore = setEnv({ PUBLIC_BASE_URL: undefined, PORT: "3055" });
    expect(env().PUBLIC_BASE_URL).toBe("http://localhost:3055");
  });

  it("defaults to port 3000, and a given origin wins over the port", () => {
    restore = setEnv({ PUBLIC_BASE_URL: undefined, PORT: undefined });
    expect(env().PUBLIC_BASE_URL).toBe("http://localhost:3000");
    restore();
    restore = setEnv({ PUBLIC_BASE_URL: "https://pay.example.test", PORT: "3055" });
    expect(env().PUBLIC_BASE_URL).toBe("https://pay.example.test");
  });

  it("refuses a port that is not a number, naming it", () => {
    restore = setEnv({ PORT: "eighty" });
    expect(() => env()).toThrow(/PORT/);
  });
});
