import type { ReactNode } from "react";
import "@/components/checkout/checkout.css";

/** The hosted pages' own small stylesheet; nothing of the dashboard's. */
export default function HostedLayout({ children }: { children: ReactNode }) {
  return children;
}
