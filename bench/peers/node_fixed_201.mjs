// Node's own HTTP server (node:http, one process) answering every request with a fixed 201:
// the floor under any provider written for Node, such as the seeds' JavaScript original
// (not in this repository: docs/original-spec describes its wire only). Prints its URL first.
import { createServer } from "node:http";

const body = '{"id":"job_00000001"}';
const server = createServer((request, response) => {
  request.resume(); // read the body to its end, as a provider must
  request.on("end", () => {
    response.writeHead(201, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
    });
    response.end(body);
  });
});
server.listen(0, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
