// An MCP server (stdio, the reference TypeScript SDK that server-everything is built on) whose
// tool "die" makes the process exit during the call, for the tests of a server that dies mid-run.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "dies", version: "1.0.0" });
server.registerTool("ping", { description: "Answers pong and the process id.", inputSchema: {} },
  async () => ({ content: [{ type: "text", text: `pong ${process.pid}` }] }));
server.registerTool("die", { description: "Exits the server process during the call.", inputSchema: { code: z.number().optional() } },
  async ({ code }) => { process.exit(code ?? 1); });
await server.connect(new StdioServerTransport());
