import { expect, test as setup } from "@playwright/test";
import { seed } from "../support/seed";
import { fillSignIn } from "./support";

/** Signs the seeded admin in once; the dashboard tests reuse the session cookie. */
export const STAFF_STATE = "e2e/.auth/staff.json";

setup("sign in as the seeded admin", async ({ page }) => {
  const { staff } = seed();
  expect(staff.password, "the e2e seed creates its staff user, so its password is known").toBeTruthy();
  await page.goto("/dashboard/sign-in");
  await fillSignIn(page, staff.email, staff.password!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard");
  await page.context().storageState({ path: STAFF_STATE });
});
