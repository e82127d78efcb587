/**
 * Codex (`codex exec`, pinned in prerequisites.ts) as a client of
 * `skiff mcp serve`, configured with the snippet docs/mcp.md prints, under
 * `approval_policy = "never"`, its model a scripted Responses API server on
 * 127.0.0.1: the model calls skiff's `read`, and the file's text reaches the
 * model's next request; its call of `bash` (annotated as possibly
 * destructive) Codex refuses by itself under "never", as it would ask
 * before it otherwise.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox } from "../../support/cli.ts";
import { startResponsesServer } from "../../support/responses_server.ts";
import { CODEX, npmPackage, skiffOnPath } from "./prerequisites.ts";

const DOCS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/mcp.md");

/** The Codex config.toml block of docs/mcp.md, as printed there. */
async function codexSnippet(): Promise<string> {
  const docs = await Deno.readTextFile(DOCS);
  const block = /```toml\n(\[mcp_servers\.skiff\][^]*?)```/.exec(docs);
  assert(block, "docs/mcp.md has no ```toml block starting [mcp_servers.skiff]");
  return block[1];
}

Deno.test("Codex exec with the docs' snippet and approval never: the model's call of skiff's read runs", async () => {
  const codex = path.join(await npmPackage(CODEX), "bin/codex.js");
  const sandbox = await makeSandbox();
  const model = startResponsesServer([
    {
      toolCalls: [
        { namespace: "mcp__skiff", name: "read", arguments: { file_path: "note.txt" } },
        // The control: a tool whose annotations say it may destroy, which Codex will not run unasked.
        { namespace: "mcp__skiff", name: "bash", arguments: { command: "rm note.txt" } },
      ],
    },
    { text: "The note says codex was here." },
  ]);
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "note.txt"), "codex was here\n");
    const snippet = await codexSnippet();
    assertStringIncludes(snippet, 'command = "skiff"');
    const codexHome = path.join(sandbox.root, "codex");
    await Deno.mkdir(codexHome);
    await Deno.writeTextFile(
      path.join(codexHome, "config.toml"),
      [
        'model = "scripted-model"',
        'model_provider = "scripted"',
        'approval_policy = "never"',
        "",
        "[model_providers.scripted]",
        'name = "scripted"',
        `base_url = "${model.url}"`,
        'wire_api = "responses"',
        "",
        snippet.replaceAll("/path/to/project", sandbox.workspace),
      ].join("\n"),
    );
    const result = await new Deno.Command("node", {
      args: [codex, "exec", "--skip-git-repo-check", "What does note.txt say?"],
      cwd: sandbox.workspace,
      env: { ...sandbox.env, PATH: await skiffOnPath(sandbox), CODEX_HOME: codexHome },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(150_000),
    }).output();
    const stdout = new TextDecoder().decode(result.stdout);
    const stderr = new TextDecoder().decode(result.stderr);
    const story = `codex exec exited ${result.code}\nstdout: ${stdout}\nstderr: ${stderr}\n` +
      `model requests: ${model.requests.length}, refusals: ${model.refusals.join("; ")}`;
    assertEquals(result.code, 0, story);
    assertEquals(model.requests.length, 2, story);

    // Codex offered skiff's tools to the model, in the namespace it gives a server's tools.
    const tools = model.requests[0].tools as { name: string; tools?: { name: string }[] }[];
    const skiff = tools.find((tool) => tool.name === "mcp__skiff");
    assert(skiff?.tools?.some((tool) => tool.name === "read"), `no skiff read tool: ${story}`);

    // The read ran in skiff, its output the next request's input; the bash call Codex refused.
    const input = model.requests[1].input as { type: string; name?: string; call_id?: string }[];
    const output = (name: string) => {
      const call = input.find((item) => item.type === "function_call" && item.name === name);
      const answer = input.find((item) =>
        item.type === "function_call_output" && item.call_id === call?.call_id
      );
      return JSON.stringify(answer);
    };
    assert(!/requires approval/i.test(output("read")), `Codex refused read: ${output("read")}`);
    assertStringIncludes(output("read"), "codex was here");
    assertStringIncludes(output("bash"), "requires approval");
    assert(await Deno.stat(path.join(sandbox.workspace, "note.txt")), "the refused rm ran");
    assertStringIncludes(stdout, "The note says codex was here.");
  } finally {
    await model.close();
    await sandbox.cleanup();
  }
});
