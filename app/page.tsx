import Link from "next/link";

export default function Home() {
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
      <pre>{`curl -X POST http://localhost:3000/v1/payments \\
  -u sk_test_…: \\
  -H "Idempotency-Key: order-1001" \\
  -H "Content-Type: application/json" \\
  -d '{"amount":1000,"currency":"USD","method":"wallet","reference":"order-1001","customer":{"msisdn":"0771234567"}}'`}</pre>
    </main>
  );
}
