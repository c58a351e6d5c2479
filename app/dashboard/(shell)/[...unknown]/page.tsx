import { notFound } from "next/navigation";

export const metadata = { title: "No such page" };

// /dashboard/<anything else> – the shell's own "no such page", with its navigation, not a bare 404
export default function UnknownDashboardPage(): never {
  notFound();
}
