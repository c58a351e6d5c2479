"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/trpc/routers/_app";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** A tRPC error's message for the page, and whether it is worth retrying. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : "Something went wrong. Try again.";
}

/** The object a page asked for is not here: missing, or an id none could have (too long, say). Asking again will not help. */
export function isMissing(e: unknown): boolean {
  const code = e instanceof TRPCClientError ? (e.data as { code?: string } | undefined)?.code : undefined;
  return code === "NOT_FOUND" || code === "BAD_REQUEST";
}

const clientError = (e: unknown) => e instanceof TRPCClientError && typeof e.data?.httpStatus === "number" && e.data.httpStatus < 500;

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      // Refused or missing is not going to change by asking again.
      queries: { staleTime: 10_000, retry: (n, e) => !clientError(e) && n < 2, refetchOnWindowFocus: true },
    },
  });
}

/** The dashboard's data layer: one query client and one tRPC client per browser tab. */
export function DashboardProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
