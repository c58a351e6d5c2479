import { AsyncResource } from "node:async_hooks";

/**
 * An async scope for the timers of background work (the job runner's wake-ups, the sandbox's
 * callbacks). A timer started while a request is being served belongs to that request's async
 * context: it keeps the whole context (Next's request, response and caches, some 30 kB) alive
 * until it fires, and its callback runs inside it. A sandbox callback parked for the length of a
 * run kept every create's request alive; the heap then grew by tens of megabytes a minute and
 * full collections paused the server for up to half a second. Timers started through a scope
 * made outside any request do neither: make the scope with its owner, at start-up.
 */
export class BackgroundScope {
  private readonly resource: AsyncResource;

  constructor(name: string) {
    this.resource = new AsyncResource(name);
  }

  setTimeout(fn: () => void, ms: number): NodeJS.Timeout {
    return this.resource.runInAsyncScope(() => setTimeout(fn, ms));
  }
}
