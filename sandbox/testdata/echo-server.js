#!/usr/bin/env node
// A minimal MCP stdio server without dependencies, for installer tests:
// initialize, tools/list with one "echo" tool, tools/call, ping.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
rl.on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  const ok = (result) => send({ jsonrpc: "2.0", id: msg.id, result });
  switch (msg.method) {
    case "initialize":
      return ok({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "echo-js", version: "1.0.0" } });
    case "ping":
      return ok({});
    case "tools/list":
      return ok({ tools: [{ name: "echo", description: "Return the text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] });
    case "tools/call":
      return ok({ content: [{ type: "text", text: String(msg.params.arguments.text) }] });
    default:
      send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "method not found" } });
  }
});
rl.on("close", () => process.exit(0));
