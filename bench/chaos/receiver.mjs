// The chaos run's webhook receiver, in its own process so that the run's own pauses never delay
// an answer, and so that it outlives every server crash. Notes how often each event id arrived.
// It answers 200, after a hold drawn from [holdMinMs, holdMaxMs] (the parent sets it): a slow
// receiver keeps deliveries in flight long enough for a kill to land in the middle of them.
import http from "node:http";

const received = new Map();
let total = 0;
let inFlight = 0;
let holdMinMs = 0;
let holdMaxMs = 0;

const server = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    total++;
    let id;
    try {
      id = JSON.parse(body).id;
    } catch {
      id = undefined;
    }
    if (typeof id === "string") received.set(id, (received.get(id) ?? 0) + 1);
    const hold = holdMinMs + Math.random() * (holdMaxMs - holdMinMs);
    inFlight++;
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    }, hold);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.RECEIVER_PORT ?? 0), "127.0.0.1", () => process.send({ type: "ready", port: server.address().port }));

process.on("message", (msg) => {
  if (msg.type === "hold") {
    holdMinMs = msg.minMs;
    holdMaxMs = msg.maxMs;
    process.send({ type: "hold" });
  }
  if (msg.type === "dump") process.send({ type: "dump", total, inFlight, received: [...received] });
  if (msg.type === "close") {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
