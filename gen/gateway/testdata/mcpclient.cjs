// mcpclient: the official MCP TypeScript SDK's client against agentc's
// generated MCP server, for gen/gateway's TestMCPTypeScriptClient. Usage:
// node mcpclient.cjs < REQUEST.json > ANSWER.json
//
// REQUEST is {"url", "session", "token", "sessionHeader", "idMeta",
// "calls": [{"id", "tool", "input": BASE64}]}. The client connects over
// Streamable HTTP with the bearer token and the session header, lists the
// tools, and makes the calls one after another, in order. Each input's
// bytes are decoded as UTF-8 and given to JSON.parse (an input that does
// not parse, or nests too deep to stringify, is answered {"syntax": true}
// and not sent: no JavaScript client can send it); the value is sent as
// the call's arguments, with the call's id in _meta[idMeta].
//
// ANSWER is {"tools": [{name, description, inputSchema}], "results": [{"id",
// "syntax", "sent", "isError", "text", "structured", "error"}]}, where sent
// is JSON.stringify of the arguments as sent: what the callback route must
// be given to compare.
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const req = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const headers = { Authorization: "Bearer " + req.token, [req.sessionHeader]: req.session };
  const transport = new StreamableHTTPClientTransport(new URL(req.url), { requestInit: { headers } });
  const client = new Client({ name: "agentc-ts-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  const listed = await client.listTools();
  const out = { tools: listed.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })), results: [] };
  for (const call of req.calls) {
    const text = Buffer.from(call.input, "base64").toString("utf8");
    let args, sent;
    try {
      args = JSON.parse(text);
      sent = JSON.stringify(args); // throws for nesting beyond the stack
    } catch {
      out.results.push({ id: call.id, syntax: true });
      continue;
    }
    const r = { id: call.id, sent };
    try {
      const res = await client.callTool({ name: call.tool, arguments: args, _meta: { [req.idMeta]: call.id } });
      r.isError = res.isError === true;
      r.text = res.content.map((c) => c.text).join("");
      r.structured = res.structuredContent;
    } catch (err) {
      r.error = String(err && err.message ? err.message : err);
    }
    out.results.push(r);
  }
  await client.close();
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  process.stderr.write("mcpclient: " + (err && err.stack ? err.stack : String(err)) + "\n");
  process.exit(1);
});
