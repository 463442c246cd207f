#!/usr/bin/env node
// A minimal MCP server over streamable HTTP (JSON responses), without
// dependencies, for the tests of HTTP-transport packages: it listens on
// 127.0.0.1 at the port given as its first argument, serves initialize,
// ping, tools/list with one "echo" tool and tools/call.
const http = require("http");
const port = Number(process.argv[2]);
const tools = [{ name: "echo", description: "Return the text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }];
http.createServer((req, res) => {
  if (req.method !== "POST") { res.writeHead(405); res.end(); return; }
  let body = "";
  req.on("data", (c) => { body += c; });
  req.on("end", () => {
    let msg;
    try { msg = JSON.parse(body); } catch { res.writeHead(400); res.end(); return; }
    if (msg.id === undefined) { res.writeHead(202); res.end(); return; }
    const send = (m) => { res.writeHead(200, { "content-type": "application/json" }); res.end(JSON.stringify(Object.assign({ jsonrpc: "2.0", id: msg.id }, m))); };
    switch (msg.method) {
      case "initialize":
        return send({ result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "echo-http-js", version: "1.0.0" } } });
      case "ping":
        return send({ result: {} });
      case "tools/list":
        return send({ result: { tools } });
      case "tools/call":
        if (msg.params.name !== "echo") return send({ error: { code: -32602, message: "unknown tool: " + msg.params.name } });
        return send({ result: { content: [{ type: "text", text: String((msg.params.arguments || {}).text) }] } });
      default:
        return send({ error: { code: -32601, message: "method not found: " + msg.method } });
    }
  });
}).listen(port, "127.0.0.1", () => console.log("listening on " + port));
