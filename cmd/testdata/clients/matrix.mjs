// One cell of the client matrix (conversations.md §5.1): an official MCP
// TypeScript client connects to dshhost, reads a file and edits it, and is
// refused an edit and an overwrite of files it never read, and reads a PNG
// as image content (the SDK checks its structuredContent against the
// advertised output schema). It prints one
// JSON line: {"connected":bool,"protocol":..., "readThenEdit":..., ...}.
//
// node matrix.mjs SDK MODE TRANSPORT TARGET WORKSPACE
//   SDK        v1 (@modelcontextprotocol/sdk) or v2 (@modelcontextprotocol/client)
//   MODE       legacy, auto or pin (v2's versionNegotiation; v1: legacy)
//   TRANSPORT  stdio (TARGET is the dshhost binary) or http (TARGET is the URL;
//              the token is in DSH_TEST_TOKEN)
// NODE_PATH-less: the packages are resolved from MCP_CLIENTS_DIR.
import { createRequire } from "node:module";
import path from "node:path";
import fs from "node:fs";

const [sdk, mode, transportKind, target, workspace] = process.argv.slice(2);
const dir = process.env.MCP_CLIENTS_DIR;
const require = createRequire(path.join(dir, "package.json"));
const load = (name) => import(require.resolve(name));

let Client, Stdio, Http;
if (sdk === "v1") {
  ({ Client } = await load("@modelcontextprotocol/sdk/client/index.js"));
  ({ StdioClientTransport: Stdio } = await load("@modelcontextprotocol/sdk/client/stdio.js"));
  ({ StreamableHTTPClientTransport: Http } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js"));
} else {
  ({ Client, StreamableHTTPClientTransport: Http } = await load("@modelcontextprotocol/client"));
  ({ StdioClientTransport: Stdio } = await load("@modelcontextprotocol/client/stdio"));
}

const options = {};
if (sdk === "v2") {
  options.versionNegotiation = { mode: mode === "pin" ? { pin: "2026-07-28" } : mode };
}
const client = new Client({ name: `matrix-${sdk}-${mode}`, version: "1.0.0" }, options);
const transport = transportKind === "stdio"
  ? new Stdio({ command: target, args: ["serve", "--workspace", workspace], stderr: "ignore" })
  : new Http(new URL(target), { requestInit: { headers: { Authorization: `Bearer ${process.env.DSH_TEST_TOKEN}` } } });

const out = { connected: false };
const text = (res) => (res.content ?? []).map((c) => c.text).join("");
try {
  await client.connect(transport);
  out.connected = true;
  out.protocol = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  const cell = `${sdk}-${mode}-${transportKind}`;
  fs.writeFileSync(path.join(workspace, `${cell}.txt`), "hello world\n");
  fs.writeFileSync(path.join(workspace, `${cell}-unread.txt`), "untouched\n");
  const call = async (name, args) => {
    const res = await client.callTool({ name, arguments: args });
    return { isError: !!res.isError, text: text(res) };
  };
  out.read = await call("read", { file_path: `${cell}.txt` });
  out.edit = await call("edit", { file_path: `${cell}.txt`, old_string: "world", new_string: "there" });
  out.editUnread = await call("edit", { file_path: `${cell}-unread.txt`, old_string: "untouched", new_string: "touched" });
  out.overwriteUnread = await call("write", { file_path: `${cell}-unread.txt`, content: "clobbered\n" });
  fs.writeFileSync(path.join(workspace, `${cell}.png`), Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64"));
  const img = await client.callTool({ name: "read", arguments: { file_path: `${cell}.png` } });
  out.image = { isError: !!img.isError, types: (img.content ?? []).map((c) => c.type), mimeType: img.content?.[0]?.mimeType ?? "",
    bytes: Buffer.from(img.content?.[0]?.data ?? "", "base64").length };
  out.after = fs.readFileSync(path.join(workspace, `${cell}.txt`), "utf8");
  out.unreadAfter = fs.readFileSync(path.join(workspace, `${cell}-unread.txt`), "utf8");
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  try { await client.close(); } catch {}
}
console.log(JSON.stringify(out));
process.exit(0);
