import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Next keeps a page's stylesheet in the document after the page is left, so a class styled in two
 * sheets would look as whichever pages were visited before made it look. Each part of the app
 * (the dashboard, the hosted pages) therefore has one sheet every page loads, which owns the classes
 * they share, and page sheets that style only their own.
 */
const ROOT = path.resolve(__dirname, "..");
const GLOBAL = "app/globals.css";

const filesUnder = (dir: string, ext: string): string[] =>
  readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(ext))
    .map((f) => path.join(dir, f));

const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** Each rule's selectors, with the class each one starts from (or null: an element, `:root`…). */
function rules(sheet: string): { selector: string; lead: string | null }[] {
  const css = read(sheet).replace(/\/\*[\s\S]*?\*\//g, "");
  return [...css.matchAll(/([^{}]+)\{[^{}]*\}/g)].flatMap((m) =>
    m[1]!
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s && !s.startsWith("@"))
      .map((selector) => ({ selector, lead: /\.([a-zA-Z][\w-]*)/.exec(selector)?.[1] ?? null })),
  );
}

/** Every class a sheet's rules name anywhere in a selector. */
const classesStyledBy = (sheet: string) => new Set(rules(sheet).flatMap((r) => [...r.selector.matchAll(/\.([a-zA-Z][\w-]*)/g)].map((m) => m[1]!)));

/** The classes a component names in `className`, whole words only (a template's `${…}` parts are left out). */
function classesNamedIn(file: string): string[] {
  const src = read(file);
  const values = [...src.matchAll(/className=(?:"([^"]+)"|\{`([^`]+)`\})/g)].map((m) => (m[1] ?? m[2])!);
  return values.flatMap((v) => v.split(/\$\{[^}]*\}|\s+/)).filter((c) => c && !c.endsWith("-") && !c.startsWith("-"));
}

/** The sheets a component's folder imports: a part of a page sees the sheets its page imports. */
function sheetsOfFolder(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder))
    .filter((f) => f.endsWith(".tsx"))
    .flatMap((f) => [...read(path.join(folder, f)).matchAll(/import "(\.{1,2}\/[^"]+\.css)"/g)].map((m) => path.normalize(path.join(folder, m[1]!))));
}

const parts = [
  { name: "dashboard", shell: "components/dashboard/dashboard.css", sheets: filesUnder("components/dashboard", ".css"), components: [...filesUnder("components/dashboard", ".tsx"), ...filesUnder("components/ui", ".tsx")] },
  { name: "hosted pages", shell: "components/checkout/checkout.css", sheets: filesUnder("components/checkout", ".css"), components: filesUnder("components/checkout", ".tsx") },
];

describe.each(parts.map((part) => [part.name, part] as const))("the %s's stylesheets", (_, { shell, sheets, components }) => {
  it("style each class from one sheet only", () => {
    const leadingIn = new Map<string, Set<string>>();
    for (const sheet of [GLOBAL, ...sheets]) {
      for (const { lead } of rules(sheet)) {
        if (lead) leadingIn.set(lead, (leadingIn.get(lead) ?? new Set()).add(sheet));
      }
    }
    const shared = [...leadingIn].filter(([, where]) => where.size > 1).map(([cls, where]) => `.${cls}: ${[...where].join(", ")}`);
    expect(shared).toEqual([]);
  });

  it("leave rules without a class of their own (elements, :root) to the shell's sheet and the global one", () => {
    const loose = sheets.filter((s) => s !== shell).flatMap((sheet) => rules(sheet).filter((r) => r.lead === null).map((r) => `${sheet}: ${r.selector}`));
    expect(loose).toEqual([]);
  });

  it("style every class a component names, in a sheet its page always loads", () => {
    const always = new Set([...classesStyledBy(GLOBAL), ...classesStyledBy(shell)]);
    const missing: string[] = [];
    for (const file of components) {
      const own = new Set(sheetsOfFolder(path.dirname(file)).flatMap((s) => [...classesStyledBy(s)]));
      for (const cls of classesNamedIn(file)) if (!always.has(cls) && !own.has(cls)) missing.push(`${file}: .${cls}`);
    }
    expect(missing).toEqual([]);
  });
});

/** WCAG's contrast ratio of two `#rrggbb` colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe("what marks a control (WCAG 1.4.11: 3:1 against what it sits on)", () => {
  const variable = (name: string) => new RegExp(`--${name}:\\s*(#[0-9a-f]{6})`, "i").exec(read(GLOBAL))?.[1];

  it("the field's border and the focus ring stand out from the white card and the grey page", () => {
    for (const name of ["control-border", "focus-ring"]) {
      const colour = variable(name);
      expect(colour, name).toBeDefined();
      for (const ground of ["#ffffff", "#f7f8fa"]) expect(contrast(colour!, ground), `${name} on ${ground}`).toBeGreaterThanOrEqual(3);
    }
  });

  it("every sheet draws its focus rings and its fields' borders with them", () => {
    const stray = [...parts.flatMap((p) => p.sheets), GLOBAL].flatMap((sheet) =>
      [...read(sheet).matchAll(/(outline|(?:input|select|textarea|button)[^{}]*\{[^}]*border):[^;}]*#[0-9a-f]{3,6}/gi)].map((m) => `${sheet}: ${m[0]}`),
    );
    expect(stray).toEqual([]);
  });
});
