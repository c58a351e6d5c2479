import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";

export const metadata: Metadata = { title: "Payment page not found", robots: { index: false } };

// /pay (and /checkout) without an id – the hosted "does not exist" page, rendered for the request (so its
// scripts carry the response's nonce), not Next's prerendered 404, whose scripts the page's CSP refuses
export default async function PageWithoutId(): Promise<never> {
  await connection();
  notFound();
}
