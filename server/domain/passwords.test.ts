import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from "./passwords";

describe("staff passwords", () => {
  it("hashes with a salt and verifies only the right password", async () => {
    const a = await hashPassword("correct horse battery staple");
    const b = await hashPassword("correct horse battery staple");
    expect(a).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("horse");
    expect(await verifyPassword("correct horse battery staple", a)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", a)).toBe(false);
    expect(await verifyPassword("x", "not-a-hash")).toBe(false);
  });
});

describe("chosen passwords", () => {
  const email = "ana.moyo@shop.co.zw";
  it.each([
    ["short", "Use at least 12 characters"],
    ["aaaaaaaaaaaaaaaa", "more than a few different characters"],
    ["ababababcdcdcdcd", null],
    ["ana.moyo@shop.co.zw", "e-mail address"],
    ["my name is ANA.MOYO, ok", "e-mail address"],
    ["correct horse battery staple", null],
    ["🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑", "Use at least 12 characters"],
    ["x".repeat(1025), "at most 1024"],
  ])("%j: %s", (password, problem) => {
    const said = passwordProblem(password, email);
    if (problem === null) expect(said).toBeNull();
    else expect(said).toContain(problem);
  });

  it("are counted in characters as typed, not in UTF-16 units", () => {
    // Twelve emoji are 24 UTF-16 units: long enough however they are stored.
    expect(passwordProblem("🔑🗝️🔒🔓🔐🪪🎫🎟️🧾💳💰🏦", email)).toBeNull();
  });

  it("made by Mari are long, random and never repeat", () => {
    const made = Array.from({ length: 200 }, generatePassword);
    expect(new Set(made).size).toBe(200);
    for (const p of made) {
      expect(p).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(passwordProblem(p, email)).toBeNull();
    }
  });
});
