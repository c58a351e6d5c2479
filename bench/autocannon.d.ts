// The subset of autocannon's programmatic API that bench/ uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export type RequestParams = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  };
  export type RequestSpec = RequestParams & {
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  };
  export type Histogram = { average: number; p50: number; p99: number; max: number; min: number };
  export type Result = {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    latency: Histogram;
    requests: Histogram & { total: number; sent: number };
    statusCodeStats: Record<string, { count: number }>;
  };
  export type Options = {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: RequestSpec[];
  };
  export type Instance = EventEmitter &
    PromiseLike<Result> & {
      stop(): void;
      on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): Instance;
      on(event: "reqError", listener: (error: Error) => void): Instance;
    };
  function autocannon(options: Options): Instance;
  export default autocannon;
}
