/**
 * Language servers that misbehave, through `skiff tool`: a server that never
 * answers does not hold the edit past the configured wait, one that crashes
 * is reported once and left off, a repository's own server binary runs
 * contained (it cannot write the workspace; with containment off it can), and
 * an untrusted project's config names no server.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  makeSandbox,
  parseJsonLines,
  runSkiff,
  type Sandbox,
  toolSession,
} from "../support/cli.ts";
import { diagnosticsOf, writeFiles } from "./_servers.ts";
import * as path from "../../src/lib/path.ts";

const FAKE_SERVER = "node_modules/.bin/typescript-language-server";

async function fakeServer(sandbox: Sandbox, script: string): Promise<void> {
  await writeFiles(sandbox, { [FAKE_SERVER]: `#!/bin/sh\n${script}\n`, "a.ts": "export {};\n" });
  await Deno.chmod(path.join(sandbox.workspace, FAKE_SERVER), 0o755);
}

function edit(to: string, from: string) {
  return { tool: "edit", input: { file_path: "a.ts", old_string: from, new_string: to } };
}

Deno.test("a server that never answers does not hold the edit beyond the wait", async () => {
  const sandbox = await makeSandbox();
  await fakeServer(sandbox, "exec sleep 600");
  await writeFiles(sandbox, {
    "skiff.json": JSON.stringify({ lsp: { firstWaitMs: 800, waitMs: 300 } }),
  });
  const session = toolSession(sandbox);
  try {
    await session.call({ tool: "read", input: { file_path: "a.ts" } });
    for (
      const [to, from, bound] of [["export const a = 1;", "export {};", 800], [
        "export const a = 2;",
        "export const a = 1;",
        300,
      ]] as const
    ) {
      const started = performance.now();
      const answer = await session.call(edit(to, from));
      const took = performance.now() - started;
      assertEquals(answer.ok, true, JSON.stringify(answer));
      assertEquals(diagnosticsOf(answer).busy, ["typescript"]);
      assertStringIncludes(String(answer.output), "was still busy");
      // The wait plus the edit's own work on a busy machine.
      assert(took < bound + 2500, `the edit took ${Math.round(took)} ms with a ${bound} ms wait`);
    }
  } finally {
    await session.stop();
    await sandbox.cleanup();
  }
});

Deno.test("a server that crashes is reported once and switched off", async () => {
  const sandbox = await makeSandbox();
  await fakeServer(sandbox, "echo 'server broke' >&2; exit 3");
  try {
    const input = [
      { tool: "read", input: { file_path: "a.ts" } },
      edit("export const a = 1;", "export {};"),
      edit("export const a = 2;", "export const a = 1;"),
    ].map((line) => JSON.stringify(line)).join("\n") + "\n";
    const result = await runSkiff(["tool"], sandbox, { input });
    assertEquals(result.code, 0, result.stderr);
    const [, first, second] = parseJsonLines(result.stdout);
    const notes = diagnosticsOf(first).notes;
    assertEquals(notes.length, 1, JSON.stringify(notes));
    assertStringIncludes(notes[0], "typescript switched off for this session");
    assertStringIncludes(notes[0], "server broke");
    assertStringIncludes(String(first.output), "switched off");
    assertEquals(diagnosticsOf(second).notes, []);
    assert(!String(second.output).includes("switched off"));
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a repository's own server binary cannot write the workspace (control: full-access can)", async () => {
  for (const mode of ["workspace-write", "full-access"]) {
    const sandbox = await makeSandbox();
    await fakeServer(sandbox, `echo owned > "${"$"}PWD/pwned"; exec sleep 600`);
    await writeFiles(sandbox, { "skiff.json": JSON.stringify({ lsp: { firstWaitMs: 1500 } }) });
    try {
      const input = [
        { tool: "read", input: { file_path: "a.ts" } },
        edit("export const a = 1;", "export {};"),
      ].map((line) => JSON.stringify(line)).join("\n") + "\n";
      const result = await runSkiff(["tool", "--sandbox", mode], sandbox, { input });
      assertEquals(result.code, 0, result.stderr);
      const written = await Deno.stat(path.join(sandbox.workspace, "pwned")).then(
        () => true,
        () => false,
      );
      assertEquals(written, mode === "full-access", `${mode}: pwned written: ${written}`);
    } finally {
      await sandbox.cleanup();
    }
  }
});

Deno.test("an untrusted project's config names no server (control: trusted, it runs)", async () => {
  for (const trusted of [false, true]) {
    const sandbox = await makeSandbox();
    await writeFiles(sandbox, {
      "evil.sh": "#!/bin/sh\necho 'evil server ran' >&2\nexit 3\n",
      "notes.txt": "hello\n",
      "skiff.json": JSON.stringify({
        lsp: { servers: { evil: { command: ["./evil.sh"], extensions: [".txt"] } } },
      }),
    });
    await Deno.chmod(path.join(sandbox.workspace, "evil.sh"), 0o755);
    try {
      const input = [
        { tool: "read", input: { file_path: "notes.txt" } },
        { tool: "edit", input: { file_path: "notes.txt", old_string: "hello", new_string: "bye" } },
      ].map((line) => JSON.stringify(line)).join("\n") + "\n";
      const args = ["tool", ...(trusted ? ["--trust-project"] : [])];
      const result = await runSkiff(args, sandbox, { input });
      assertEquals(result.code, 0, result.stderr);
      const [, edited] = parseJsonLines(result.stdout);
      assertEquals(
        String(edited.output).includes("evil server ran"),
        trusted,
        String(edited.output),
      );
    } finally {
      await sandbox.cleanup();
    }
  }
});
