// The webhook receiver of `npm run bench`, in its own process (as a merchant's server would be),
// so that the load generator's pauses never delay a receipt. Answers 200 at once and notes the
// time each event id first arrived; the parent asks for the notes over IPC.
import http from "node:http";

const EVENT_ID = /"id":"(evt_[0-9a-z]{26})"/;
const received = new Map();
let total = 0;

const server = http.createServer((req, res) => {
  let head = "";
  req.setEncoding("utf8");
  req.on("data", (c) => {
    if (head.length < 200) head += c;
  });
  req.on("end", () => {
    const at = Date.now();
    total++;
    const id = EVENT_ID.exec(head)?.[1];
    if (id && !received.has(id)) received.set(id, at);
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send({ type: "ready", port: server.address().port }));

process.on("message", (msg) => {
  if (msg.type === "dump") process.send({ type: "dump", total, received: [...received] });
  if (msg.type === "close") {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
