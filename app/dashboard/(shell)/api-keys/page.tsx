import { ApiKeys } from "@/components/dashboard/api-keys/api-keys";

export const metadata = { title: "API keys" };

// /dashboard/api-keys – create, list and revoke keys of the current environment
export default function ApiKeysPage() {
  return (
    <>
      <h1>API keys</h1>
      <ApiKeys />
    </>
  );
}
