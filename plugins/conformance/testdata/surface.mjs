// What a real client sees of the MCP surface (issue 26): the official
// TypeScript SDK v1 over stdio lists the tools (their titles), greps a tree
// long enough to report progress, and calls the image fixture. It prints
// one JSON line: {"titles":{name:title},"progress":[...],"grep":..., "image":...}.
//
// node surface.mjs DSHHOST CONFIG WORKSPACE
// The packages are resolved from MCP_CLIENTS_DIR.
import { createRequire } from "node:module";
import path from "node:path";

const [dshhost, config, workspace] = process.argv.slice(2);
const require = createRequire(path.join(process.env.MCP_CLIENTS_DIR, "package.json"));
const load = (name) => import(require.resolve(name));
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");
const { CallToolResultSchema, ElicitRequestSchema } = await load("@modelcontextprotocol/sdk/types.js");

const client = new Client({ name: "surface", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => ({ action: "accept", content: { username: `ada (${req.params.message})` } }));
const out = {};
try {
  await client.connect(new StdioClientTransport({
    command: dshhost, args: ["serve", "--config", config, "--workspace", workspace], stderr: "ignore",
  }));
  const { tools } = await client.listTools();
  out.titles = Object.fromEntries(tools.map((t) => [t.name, t.title ?? null]));
  out.annotationTitles = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.title ?? null]));
  out.progress = [];
  const grep = await client.callTool({ name: "grep", arguments: { pattern: "[0-9]{6}" } }, CallToolResultSchema, {
    onprogress: (p) => out.progress.push(p),
    timeout: 120000,
  });
  out.grep = { isError: !!grep.isError, text: grep.content.map((c) => c.text).join("") };
  const image = await client.callTool({ name: "test_image_content", arguments: {} });
  out.image = image.content.map((c) => ({ type: c.type, mimeType: c.mimeType, data: c.data }));
  const asked = await client.callTool({ name: "test_elicitation", arguments: { message: "who?" } });
  out.elicitation = asked.content.map((c) => c.text).join("");
} catch (e) {
  out.error = String(e?.stack ?? e);
}
await client.close().catch(() => {});
console.log(JSON.stringify(out));
