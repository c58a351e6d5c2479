import { notFoundRoute } from "@/server/http/api-route";

// /v1 itself serves nothing: 404 in the error envelope, as every other unknown /v1 path.
export const GET = notFoundRoute;
export const POST = notFoundRoute;
export const PUT = notFoundRoute;
export const PATCH = notFoundRoute;
export const DELETE = notFoundRoute;
export const OPTIONS = notFoundRoute;
