import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/routers/_app";

type Out = inferRouterOutputs<AppRouter>["payments"];
export type Timeline = Out["timeline"];
export type TimelineEntry = Timeline["entries"][number];
export type PaymentView = Timeline["payment"];
