import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Page not found", robots: { index: false } };

// Any address no page or route answers: say so, and offer the ways in, rather than Next's bare "404".
export default function NotFound() {
  return (
    <main>
      <h1>This page does not exist</h1>
      <p>Check the address. From here:</p>
      <ul>
        <li>
          <Link href="/">Mari home</Link>
        </li>
        <li>
          <Link href="/dashboard">Dashboard (staff sign-in)</Link>
        </li>
        <li>
          <a href="/v1/openapi.json">API reference (OpenAPI 3.1)</a>
        </li>
      </ul>
    </main>
  );
}
