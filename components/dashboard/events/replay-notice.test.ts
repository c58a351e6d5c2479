import { describe, expect, it } from "vitest";
import { replayNotice } from "./replay-notice";

describe("replayNotice", () => {
  it("counts new deliveries apart from retries already pending, which go out within a minute instead", () => {
    expect(replayNotice(0, 0)).toMatch(/^Nothing queued: no enabled endpoint is subscribed/);
    expect(replayNotice(1, 0)).toBe("Queued 1 delivery. It shows below as it goes out.");
    expect(replayNotice(3, 0)).toBe("Queued 3 deliveries. They show below as they go out.");
    expect(replayNotice(1, 1)).toBe("Nothing new queued: a retry already pending goes out within a minute instead of a second delivery. It shows below as it goes out.");
    expect(replayNotice(2, 1)).toBe("Queued 1 new delivery; a retry already pending goes out within a minute instead of a second delivery. They show below as they go out.");
    expect(replayNotice(5, 2)).toBe("Queued 3 new deliveries; 2 retries already pending go out within a minute instead of a second delivery. They show below as they go out.");
  });
});
