import { describe, expect, it } from "vitest";
import { noCustomerNumberLogged } from "./invariants";

describe("the chaos run's check of the servers' output", () => {
  const numbers = ["263770000001", "263770000002", "263770000001"];

  it("passes output that names no customer's number", () => {
    const output = '{"level":"error","msg":"payment create failed","error":{"message":"Failed query: insert into \\"payments\\" … values ($1, $2)"}}\n▲ Next.js\n';
    expect(noCustomerNumberLogged(output, numbers)).toMatchObject({ pass: true, detail: expect.stringContaining("(1 errors logged) searched for 2 numbers; 0 lines") });
  });

  it.each(["263770000002", "0770000001", "+263 770000001", "params: pay_1,770000002"])("fails on a line holding one, written as %s", (written) => {
    const check = noCustomerNumberLogged(`ready\n{"level":"error","msg":"x","error":{"message":"${written}"}}\n`, numbers);
    expect(check.pass).toBe(false);
    expect(check.detail).toContain("1 lines hold one");
  });
});
