import assert from "node:assert/strict";
import * as path from "node:path";
import { resolveMcpServers } from "../../src/mcp/config.ts";
import { buildServerEnvironment } from "../../src/mcp/environment.ts";
import { mcpToolName } from "../../src/contracts/mcp_names.ts";
import { formatMcpResult } from "../../src/mcp/result.ts";

function project(mcpJson?: unknown): string {
  const root = Deno.makeTempDirSync({ prefix: "skiff-mcp-" });
  Deno.mkdirSync(path.join(root, ".git"));
  if (mcpJson !== undefined) {
    Deno.writeTextFileSync(path.join(root, ".mcp.json"), JSON.stringify(mcpJson));
  }
  const workspace = path.join(root, "sub");
  Deno.mkdirSync(workspace);
  return workspace;
}

const env = (values: Record<string, string>) => (name: string) => values[name];

Deno.test(".mcp.json is read as it is, from the workspace up to the git root", () => {
  const workspace = project({
    mcpServers: {
      files: {
        command: "npx",
        args: ["-y", "server-files", "${HOME}"],
        env: { TOKEN: "${GH_TOKEN}" },
      },
      web: {
        type: "http",
        url: "https://example.test/mcp",
        headers: { Authorization: "Bearer ${API:-none}" },
      },
      old: { type: "sse", url: "https://example.test/sse" },
      plain: { url: "https://example.test/auto" },
      local: { type: "stdio", command: "./server.sh", cwd: "tools" },
    },
  });
  const { servers, warnings } = resolveMcpServers({
    workspace,
    env: env({ HOME: "/home/me", GH_TOKEN: "ghp_1" }),
    projectVariables: ["HOME", "GH_TOKEN"],
  });
  assert.deepEqual(warnings, []);
  const byName = new Map(servers.map((server) => [server.name, server]));
  const files = byName.get("files")!;
  assert.equal(files.transport, "stdio");
  assert.ok(files.transport === "stdio" && files.args.at(-1) === "/home/me");
  assert.ok(files.transport === "stdio" && files.env.TOKEN === "ghp_1");
  const web = byName.get("web")!;
  assert.ok(web.transport === "http" && web.headers.Authorization === "Bearer none");
  assert.equal(byName.get("old")!.transport, "sse");
  assert.equal(byName.get("plain")!.transport, "auto");
  const local = byName.get("local")!;
  assert.ok(
    local.transport === "stdio" && local.cwd === path.join(path.dirname(workspace), "tools"),
  );
  assert.equal(files.timeoutMs, 60_000);
  assert.equal(files.connectTimeoutMs, 30_000);
});

Deno.test("config entries layer over .mcp.json ones; bad entries are warnings", () => {
  const workspace = project({ mcpServers: { github: { command: "gh-mcp" } } });
  const { servers, warnings } = resolveMcpServers({
    workspace,
    env: env({}),
    configServers: {
      github: { enabled: false },
      slow: { command: ["node", "server.js"], args: ["--x"], timeout_ms: 5000 },
      broken: {},
      needs: { url: "https://example.test/${MISSING}" },
    },
  });
  const byName = new Map(servers.map((server) => [server.name, server]));
  assert.equal(byName.get("github")!.enabled, false);
  const slow = byName.get("slow")!;
  assert.ok(slow.transport === "stdio" && slow.command === "node");
  assert.ok(slow.transport === "stdio" && slow.args.join(" ") === "server.js --x");
  assert.equal(slow.timeoutMs, 5000);
  assert.ok(!byName.has("broken"));
  assert.ok(
    warnings.some((line) => line.includes('"broken"') && line.includes('needs either "command"')),
  );
  assert.ok(warnings.some((line) => line.includes("${MISSING} is not set")));
});

Deno.test("a project's server expands only the variables the user allowed; the user's own expand all", () => {
  const workspace = project({
    mcpServers: {
      theirs: { url: "https://x.test/?k=${OPENAI_API_KEY}&h=${HOME}&d=${NOPE:-fallback}" },
    },
  });
  const { servers, warnings } = resolveMcpServers({
    workspace,
    env: env({ OPENAI_API_KEY: "sk-1", HOME: "/h", NOPE: "set" }),
    configServers: { mine: { command: "s", args: ["${OPENAI_API_KEY}"] } },
    projectVariables: ["HOME"],
  });
  const byName = new Map(servers.map((server) => [server.name, server]));
  const theirs = byName.get("theirs")!;
  assert.ok(theirs.transport !== "stdio" && theirs.url === "https://x.test/?k=&h=/h&d=fallback");
  assert.equal(theirs.origin, "project");
  const mine = byName.get("mine")!;
  assert.ok(mine.transport === "stdio" && mine.args[0] === "sk-1");
  assert.equal(mine.origin, "user");
  assert.ok(warnings.some((line) => line.includes("${OPENAI_API_KEY} is not expanded")));
});

Deno.test("a project server's cwd is judged on its real path: a link out of the project is refused", () => {
  const workspace = project({
    mcpServers: {
      linked: { command: "s", cwd: "out" },
      inside: { command: "s", cwd: "tools", sandbox: true, network: true },
    },
  });
  const root = path.dirname(workspace);
  Deno.symlinkSync("/", path.join(root, "out"));
  Deno.mkdirSync(path.join(root, "tools"));
  const { servers, warnings } = resolveMcpServers({ workspace, env: env({}) });
  assert.deepEqual(servers.map((server) => server.name), ["inside"]);
  const inside = servers[0];
  assert.ok(inside.transport === "stdio" && inside.sandbox?.network === true);
  assert.ok(
    warnings.some((line) => line.includes('"linked"') && line.includes("outside the project")),
  );
});

Deno.test("a .mcp.json that is not JSON is a warning naming the file", () => {
  const workspace = project();
  const file = path.join(path.dirname(workspace), ".mcp.json");
  Deno.writeTextFileSync(file, "{ not json");
  const { servers, warnings } = resolveMcpServers({ workspace, env: env({}) });
  assert.equal(servers.length, 0);
  assert.ok(warnings[0].startsWith(file));
});

Deno.test("server environment: allowlist plus own env, nothing else", () => {
  const result = buildServerEnvironment(
    { OWN: "1" },
    env({
      PATH: "/bin",
      HOME: "/h",
      OPENAI_API_KEY: "sk-x",
      AWS_SECRET_ACCESS_KEY: "s",
      NODE_EXTRA_CA_CERTS: "/ca.pem",
    }),
  );
  assert.deepEqual(result, {
    PATH: "/bin",
    HOME: "/h",
    NODE_EXTRA_CA_CERTS: "/ca.pem",
    OWN: "1",
    SKIFF_CHILD: "1",
  });
  // A server's own env cannot take away the marker of a child of skiff.
  assert.equal(buildServerEnvironment({ SKIFF_CHILD: "" }, env({})).SKIFF_CHILD, "1");
});

Deno.test("tool names are sanitised and kept under 64 characters, distinct", () => {
  assert.equal(mcpToolName("my server", "get.issue"), "my_server_get_issue");
  const long1 = mcpToolName("s".repeat(40), `${"t".repeat(40)}_one`);
  const long2 = mcpToolName("s".repeat(40), `${"t".repeat(40)}_two`);
  assert.ok(long1.length < 64 && long2.length < 64);
  assert.notEqual(long1, long2);
  assert.match(long1, /^[a-zA-Z0-9_-]+$/);
});

Deno.test("results: text passes, images and resources are described", () => {
  const output = formatMcpResult({
    content: [
      { type: "text", text: "hello" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
      { type: "resource_link", uri: "file:///b.txt", name: "b" },
    ],
  });
  assert.equal(
    output,
    "hello\n[image image/png, 3 bytes]\n[resource file:///a.txt]\ninside\n[resource link file:///b.txt (b)]",
  );
  assert.equal(formatMcpResult({ content: [], structuredContent: { a: 1 } }), '{\n  "a": 1\n}');
});

Deno.test("your config's headers and env for a name never go to a server the project defines (control: your own server gets them)", () => {
  const workspace = project({
    mcpServers: {
      tracker: { type: "http", url: "https://attacker.test/mcp" },
      runner: { command: "./collect.sh" },
    },
  });
  const own = {
    tracker: { headers: { Authorization: "Bearer user-secret" }, timeout_ms: 5000 },
    runner: { env: { TOKEN: "user-secret" } },
  };
  const { servers, warnings } = resolveMcpServers({ workspace, configServers: own, env: env({}) });
  const byName = new Map(servers.map((server) => [server.name, server]));
  const tracker = byName.get("tracker")!;
  assert.ok(tracker.transport === "http");
  assert.equal(tracker.url, "https://attacker.test/mcp");
  assert.ok(!JSON.stringify(servers).includes("user-secret"), JSON.stringify(servers));
  // A setting without a secret still applies to the project's server.
  assert.equal(tracker.timeoutMs, 5000);
  assert.equal(
    warnings.filter((line) => line.includes("are not sent")).length,
    2,
    warnings.join("\n"),
  );
  // Control: the same headers on a server your config defines (its url) are sent.
  const mine = resolveMcpServers({
    workspace,
    configServers: {
      tracker: {
        type: "http",
        url: "https://mine.test/mcp",
        headers: { Authorization: "Bearer user-secret" },
      },
    },
    env: env({}),
  }).servers.find((server) => server.name === "tracker")!;
  assert.ok(mine.transport === "http" && mine.headers.Authorization === "Bearer user-secret");
  assert.equal(mine.url, "https://mine.test/mcp");
});
