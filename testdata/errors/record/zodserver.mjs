// A server on @modelcontextprotocol/sdk 1.24.2 whose tool schemas use zod v4
// (ZV=4, import "zod/v4") or zod v3 (ZV=3, import "zod/v3"); the SDK puts
// zod's error.message (JSON of the issues) into its -32602 error.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
const z = process.env.ZV === "3" ? (await import("zod/v3")).z : (await import("zod/v4")).z;
const s = new McpServer({ name: "zod-v" + (process.env.ZV || "4"), version: "0.0.1" });
s.tool("search_issues", "search", {
  query: z.string().min(2).max(100),
  limit: z.number().int().min(1).max(50).optional(),
  state: z.enum(["open", "closed", "all"]).optional(),
  since: z.string().datetime().optional(),
  target: z.union([z.string().url(), z.number().int()]).optional(),
}, async (a) => ({ content: [{ type: "text", text: "ok" }] }));
s.tool("get_issue", "get", { number: z.number().int().positive() }, async (a) => ({ content: [{ type: "text", text: "issue " + a.number }] }));
await s.connect(new StdioServerTransport());
