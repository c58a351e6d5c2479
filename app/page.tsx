import Link from "next/link";
import { connection } from "next/server";
import { env } from "@/server/env";

export default async function Home() {
  // Rendered per request: the example names this server's own address (PUBLIC_BASE_URL).
  await connection();
  const base = env().PUBLIC_BASE_URL;
  return (
    <main>
      <h1>Mari</h1>
      <p>Collect payments from EcoCash, OneMoney and Telecash wallets with one API.</p>
      <ul>
        <li>
          <a href="/v1/openapi.json">API reference (OpenAPI 3.1)</a>
        </li>
        <li>
          <Link href="/dashboard">Dashboard (staff sign-in)</Link>
        </li>
        <li>
          <a href="/api/health">Service health</a>
        </li>
      </ul>
      <pre>{`curl -X POST ${base}/v1/payments \\
  -u sk_test_…: \\
  -H "Idempotency-Key: order-1001" \\
  -H "Content-Type: application/json" \\
  -d '{"amount":1000,"currency":"USD","method":"wallet","reference":"order-1001","customer":{"msisdn":"0771234567"}}'`}</pre>
    </main>
  );
}
