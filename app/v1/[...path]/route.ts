import { notFoundRoute } from "@/server/http/api-route";

// Any /v1 path no operation serves: 404 in the error envelope, not Next's HTML page.
export const GET = notFoundRoute;
export const POST = notFoundRoute;
export const PUT = notFoundRoute;
export const PATCH = notFoundRoute;
export const DELETE = notFoundRoute;
export const OPTIONS = notFoundRoute;
