// The official TypeScript MCP SDK (npm @modelcontextprotocol/sdk, pinned in
// scripts/install-host-clis) as a client of engram-mcp over stdio. It lists the tools, then calls
// each one; the SDK itself checks every result against the tool's declared outputSchema (and
// throws when structuredContent does not validate), so a result here is what a real TypeScript
// host would accept.
//
// argv[2]: the npm prefix holding node_modules. stdin: {command, args, env, cwd, calls}, where
// calls is [[tool, arguments], ...]; the strings "$A", "$B" and "$TOKEN" in arguments become the
// ids of the two memories the script saves first and the approval token engram_save returned.
// stdout: {tools: [{name, title, hasOutputSchema}], results: [{tool, ok, isError, error}]}.
const path = require("path");
const sdk = (p) => require(path.join(process.argv[2], "node_modules", "@modelcontextprotocol", "sdk", "dist", "cjs", p));
const { Client } = sdk("client/index.js");
const { StdioClientTransport } = sdk("client/stdio.js");

function substitute(value, vars) {
  if (typeof value === "string" && value in vars) return vars[value];
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

async function main() {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input);
  const transport = new StdioClientTransport({
    command: job.command, args: job.args, env: job.env, cwd: job.cwd, stderr: "ignore",
  });
  const client = new Client({ name: "engram-ts-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const vars = {};
  const results = [];
  const call = async (tool, args) => {
    try {
      const result = await client.callTool({ name: tool, arguments: substitute(args, vars) });
      results.push({ tool, ok: true, isError: Boolean(result.isError) });
      return result;
    } catch (err) {
      results.push({ tool, ok: false, isError: true, error: String(err && err.message || err) });
      return null;
    }
  };
  const first = await call("mem_save", { title: "Rate limit login", content: "**What** limits on /login" });
  const second = await call("mem_save", { title: "Rate limit login v2", content: "**What** limits on /login too" });
  vars.$A = first && first.structuredContent.data.result.id;
  vars.$B = second && second.structuredContent.data.result.id;
  for (const [tool, args] of job.calls) {
    const result = await call(tool, args);
    if (tool === "engram_save" && result && !result.isError) {
      vars.$TOKEN = result.structuredContent.data.approval_token;
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify({
    tools: tools.map((t) => ({ name: t.name, title: t.title, hasOutputSchema: Boolean(t.outputSchema) })),
    results,
  }));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err));
  process.exit(1);
});
