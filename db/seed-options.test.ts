import { describe, expect, it } from "vitest";
import { parseSeedArgs, SeedUsageError } from "./seed-options";

describe("parseSeedArgs", () => {
  it("reads every flag, and defaults to the demo merchant with no restricted key", () => {
    expect(parseSeedArgs([])).toEqual({ json: false, slug: "demo", newPassword: false });
    expect(
      parseSeedArgs(["--json", "--merchant", "acme-foods", "--restricted", "payments:read, refunds:write", "--fee-bearer", "customer", "--new-password"]),
    ).toEqual({ json: true, slug: "acme-foods", restrictedScopes: ["payments:read", "refunds:write"], feeBearer: "customer", newPassword: true });
  });

  it("refuses --restricted with no scope, or with a gap in its list, rather than issue fewer keys", () => {
    for (const list of ["", " ", ",", "payments:read,", "payments:read,,refunds:write"]) {
      expect(() => parseSeedArgs(["--json", "--restricted", list])).toThrow(new SeedUsageError(`--restricted takes one or more scopes separated by commas, such as payments:read,refunds:write (got '${list}').`));
    }
  });

  it("refuses a scope it does not know, naming it and the known ones", () => {
    expect(() => parseSeedArgs(["--restricted", "payments:read,payments:delete"])).toThrow(/^Unknown scope\(s\): payments:delete\. Known: payments:read, /);
  });

  it("refuses unknown flags, missing values, stray arguments and a fee bearer or slug it cannot use", () => {
    const refusals: [string[], RegExp][] = [
      [["--merchnat", "acme"], /Unknown option '--merchnat'/],
      [["--merchant"], /'--merchant <value>' argument missing/],
      [["--merchant", "--json"], /'--merchant' argument is ambiguous/],
      [["--restricted"], /'--restricted <value>' argument missing/],
      [["acme"], /Unexpected argument 'acme'/],
      [["--json=yes"], /'--json' does not take an argument/],
      [["--fee-bearer", "nobody"], /--fee-bearer must be one of: merchant, customer \(got 'nobody'\)/],
      [["--merchant", ""], /Invalid merchant slug ''/],
      [["--merchant", "Acme"], /Invalid merchant slug 'Acme'/],
      [["--merchant=-acme"], /Invalid merchant slug '-acme'/],
      [["--merchant", "a".repeat(41)], /Invalid merchant slug/],
    ];
    for (const [args, message] of refusals) {
      expect(() => parseSeedArgs(args), args.join(" ")).toThrow(SeedUsageError);
      expect(() => parseSeedArgs(args), args.join(" ")).toThrow(message);
    }
  });
});
