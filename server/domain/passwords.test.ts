import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, passwordProblem, passwordWork, verifyPassword } from "./passwords";

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
    ["train-drum-velvet-7", null],
    ["123456789012", "among the first an attacker tries"],
    ["1234 5678 9012", "among the first an attacker tries"],
    ["Password1234", "among the first an attacker tries"],
    ["!!P@ssw0rd2026!!", "among the first an attacker tries"],
    ["qwertyuiop12", "among the first an attacker tries"],
    ["abcdefghijklmnop", "among the first an attacker tries"],
    ["zyxwvutsrqponm", "among the first an attacker tries"],
    ["aaaaaaaaabcd", "among the first an attacker tries"],
    ["Zimbabwe2026!", "among the first an attacker tries"],
    ["ecocash-harare-2026", null],
    ["ana.moyo@shop.co.zw", "Do not use your e-mail address as your password."],
    // Only the part before the @: the message names that part, not the whole address.
    ["my name is ANA.MOYO, ok", 'Do not use the name of your e-mail address ("ana.moyo") in your password.'],
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

describe("password work on the thread pool", () => {
  it("runs two at once, queues 64 more, refuses the rest at once, and frees every slot after", async () => {
    // A cheap hash (N = 2^10), checked 80 times at once.
    const salt = Buffer.alloc(16).toString("base64");
    const cheap = `scrypt$1024$8$1$${salt}$${Buffer.alloc(32).toString("base64")}`;
    const checks = Array.from({ length: 80 }, () => verifyPassword("guess", cheap));
    expect(passwordWork()).toEqual({ running: 2, waiting: 64, knownWaiting: 0 });
    const settled = await Promise.allSettled(checks);
    const refused = settled.filter((r) => r.status === "rejected");
    expect(refused).toHaveLength(14);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "rate_limited" });
    expect(settled.filter((r) => r.status === "fulfilled" && r.value === false)).toHaveLength(66);
    expect(passwordWork()).toEqual({ running: 0, waiting: 0, knownWaiting: 0 });
    // And it still works afterwards.
    expect(await verifyPassword("guess", cheap)).toBe(false);
  });

  it("checks someone known ahead of a flood of strangers, in a line of their own the flood cannot fill", async () => {
    const salt = Buffer.alloc(16).toString("base64");
    const cheap = `scrypt$1024$8$1$${salt}$${Buffer.alloc(32).toString("base64")}`;
    // The lines as the first check to finish left them: only a finished check hands its slot on.
    let atFirstFinish: ReturnType<typeof passwordWork> | undefined;
    const finished = () => void (atFirstFinish ??= passwordWork());
    const flood = Array.from({ length: 80 }, () => verifyPassword("guess", cheap).then(finished));
    const known = verifyPassword("guess", cheap, { known: true }).then(finished);
    expect(passwordWork()).toEqual({ running: 2, waiting: 64, knownWaiting: 1 });
    const settled = await Promise.allSettled([...flood, known]);
    // Refused: 14 strangers, never the known one.
    expect(settled.filter((r) => r.status === "rejected")).toHaveLength(14);
    expect(settled.at(-1)?.status).toBe("fulfilled");
    // The first slot given up went to the known one, ahead of the 64 strangers who came before it.
    // (Which of the checks then running finishes first is the thread pool's affair, so the order of
    // finishing is not asserted.)
    expect(atFirstFinish?.knownWaiting).toBe(0);
    expect(atFirstFinish?.waiting).toBeGreaterThanOrEqual(63);
    expect(passwordWork()).toEqual({ running: 0, waiting: 0, knownWaiting: 0 });
  });
});
