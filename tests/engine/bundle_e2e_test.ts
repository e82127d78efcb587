/**
 * The bundle (`deno task build`, src/boot/bundle.ts) end to end, in a copy of
 * this tree built here: each path the bundle changes runs through it, as the
 * compiled binary runs it. The commands parsed by commander, file reads and
 * writes (the
 * confined writer), a command under bubblewrap and under Landlock (whose
 * exec step the bundle finds as `../../main.ts`), a model run with a tool
 * call, a skill whose frontmatter loads the YAML parser (the bundle's lazy
 * `require`); and an edited
 * source makes the next start run the sources, as does SKIFF_BUNDLE=0.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runMain, type Sandbox } from "../support/cli.ts";
import { startMockServer } from "../support/mock_server.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import { BUNDLE_DIR, ENGINE_BUNDLE_DIR } from "../../src/boot/bundle.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const found = await probeSandboxes();
if (!found.bwrap) {
  console.warn(
    "\n!!! BUNDLE: bubblewrap does not work here; its command test is SKIPPED. !!!\n",
  );
}
if (found.landlock === undefined) {
  console.warn(
    "\n!!! BUNDLE: Landlock does not work here; its command test is SKIPPED. !!!\n",
  );
}

/** A copy of this tree's sources, built; removed after `work`. */
async function withBuiltCopy(work: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "skiff-bundle-tree-" });
  try {
    for (const entry of ["main.ts", "deno.json", "deno.lock", "src", "scripts"]) {
      const copied = await new Deno.Command("cp", {
        args: ["-a", path.join(ROOT, entry), root],
      }).output();
      assert(copied.success, `copying ${entry}`);
    }
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "scripts/build.ts"],
      cwd: root,
      stderr: "piped",
    }).output();
    assert(built.success, new TextDecoder().decode(built.stderr));
    await work(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * The files `entry` (in `dir`) imports statically, transitively, and the
 * modules outside the bundle among them (`node:…`): what a start evaluates
 * before anything is loaded lazily.
 */
function staticClosure(dir: string, entry: string): { files: Set<string>; outside: Set<string> } {
  const files = new Set<string>();
  const outside = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = Deno.readTextFileSync(path.join(dir, file));
    const imports = /^(?:import|export)\s[^;]*?from\s*"([^"]+)";|^import\s*"([^"]+)";/gms;
    for (const match of text.matchAll(imports)) {
      const specifier = match[1] ?? match[2];
      if (specifier.startsWith("./")) todo.push(specifier.slice(2));
      else outside.add(specifier);
    }
  }
  return { files, outside };
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
  bundled: boolean;
}

async function skiff(
  root: string,
  sandbox: Sandbox,
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<Result> {
  const result = await runMain(path.join(root, "main.ts"), args, sandbox, {
    env: { SKIFF_TIMINGS: "1", ...env },
    input: input ?? "",
  });
  return { ...result, bundled: / bundle=/.test(result.stderr) };
}

function toolOutput(result: Result): { ok: boolean; output: string; error?: { code: string } } {
  assertEquals(result.code === 0 || result.code === 1, true, result.stderr);
  return JSON.parse(result.stdout);
}

Deno.test({
  name: "bundle: the CLI, files, commands under both sandboxes, a model run and skills",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await withBuiltCopy(async (root) => {
      const sandbox = await makeSandbox();
      const skillDir = path.join(sandbox.configDir, "skills", "greet");
      await Deno.mkdir(skillDir, { recursive: true });
      await Deno.writeTextFile(
        path.join(skillDir, "SKILL.md"),
        "---\nname: greet\ndescription: Says hello in the house style.\n---\nSay hello twice.\n",
      );
      await Deno.writeTextFile(path.join(sandbox.workspace, "a.txt"), "alpha\n");
      try {
        await t.step("a start evaluates no Node layer but node:sqlite (the engine's store)", () => {
          const cli = path.join(root, BUNDLE_DIR);
          const start = staticClosure(cli, "start.js");
          assertEquals([...start.outside], [], [...start.files].join(" "));
          const engineDir = path.join(root, ENGINE_BUNDLE_DIR);
          const engine = staticClosure(engineDir, "worker_main.js");
          assertEquals([...engine.outside], ["node:sqlite"], [...engine.files].join(" "));
          // Nor does the terminal side of a `skiff tool` call: its session hold loads the store
          // only when it must (host/session_hold.ts), which a short call never does.
          const toolChunk = [...Deno.readDirSync(cli)].find((entry) =>
            entry.name.startsWith("tool-")
          )!.name;
          const tool = staticClosure(cli, toolChunk);
          assertEquals([...tool.outside], [], [...tool.files].join(" "));
          // esbuild's createRequire (node:module) is resolved when first called, not at start.
          for (const [dir, files] of [[cli, start.files], [engineDir, engine.files]] as const) {
            for (const file of files) {
              const text = Deno.readTextFileSync(path.join(dir, file));
              assert(!text.includes("__deno_internal_createRequire"), file);
            }
          }
          // The shell parser's glue is told it is not Node (scripts/build.ts), so a first bash
          // call loads none of Node's modules for it; the command steps below parse with it.
          for (const dir of [cli, engineDir]) {
            const glue = [...Deno.readDirSync(dir)].filter((entry) => entry.name.endsWith(".js"))
              .map((entry) => Deno.readTextFileSync(path.join(dir, entry.name))).filter((text) =>
                text.includes("var ENVIRONMENT_IS_NODE")
              );
            assertEquals(glue.length, 1, dir);
            assertStringIncludes(glue[0], "var ENVIRONMENT_IS_NODE = false;");
            // Its two WebAssembly modules are files imported as bytes, not base64 in a chunk.
            const wasmChunk = [...Deno.readDirSync(dir)].find((entry) =>
              entry.name.startsWith("_shell_wasm-")
            )!.name;
            const chunkText = Deno.readTextFileSync(path.join(dir, wasmChunk));
            assert(!chunkText.includes("__toBinary"), chunkText.slice(0, 300));
            for (const wasm of ["web-tree-sitter.wasm", "tree-sitter-bash.wasm"]) {
              assertStringIncludes(chunkText, `from "./${wasm}" with { type: "bytes" }`);
              const bytes = Deno.readFileSync(path.join(dir, wasm));
              assertEquals([...bytes.subarray(0, 4)], [0, 0x61, 0x73, 0x6d], wasm); // "\0asm"
            }
          }
          // zod's namespace import keeps its 63 other locales out (docs/performance.md): the
          // named `{ z }` import bundled every one, ~600 KB the Worker parsed at each start.
          for (const dir of [cli, engineDir]) {
            const locales = new Set<string>();
            for (const entry of Deno.readDirSync(dir)) {
              if (!entry.name.endsWith(".js")) continue;
              const text = Deno.readTextFileSync(path.join(dir, entry.name));
              for (const found of text.matchAll(/\/zod\/[^/]+\/v4\/locales\/([\w-]+)\.js/g)) {
                locales.add(found[1]);
              }
            }
            assertEquals([...locales], ["en"], dir);
          }
          // No command's chunk is loaded with start.js's graph: importLazy's are computed.
          const lazy = [...start.files].map((file) => Deno.readTextFileSync(path.join(cli, file)))
            .join("\n");
          assert(
            !/case "src\/cli\/tool\.ts":\s*return import\("/.test(lazy),
            "a written-out command import",
          );
          assertStringIncludes(lazy, 'case "src/cli/tool.ts":');
        });

        await t.step("help, a usage error and a command parsed by commander", async () => {
          const help = await skiff(root, sandbox, ["--help"]);
          assertEquals(help.code, 0, help.stderr);
          assertStringIncludes(help.stdout, "Usage: skiff");
          const wrong = await skiff(root, sandbox, ["sessions", "lisst"]);
          assertEquals(wrong.code, 2, wrong.stderr);
          assert(wrong.bundled, wrong.stderr);
          const sessions = await skiff(root, sandbox, ["sessions", "list", "--all"]);
          assertEquals(sessions.code, 0, sessions.stderr);
          assert(sessions.bundled, sessions.stderr);
        });

        await t.step("read, then edit and write through the confined writer", async () => {
          const read = await skiff(root, sandbox, ["tool", "read", '{"file_path":"a.txt"}']);
          assert(read.bundled, `the bundle was not used:\n${read.stderr}`);
          assertStringIncludes(toolOutput(read).output, "alpha");
          // One session: edit needs the read before it.
          const calls = [
            { tool: "read", input: { file_path: "a.txt" } },
            {
              tool: "edit",
              input: { file_path: "a.txt", old_string: "alpha", new_string: "beta" },
            },
            { tool: "write", input: { file_path: "b.txt", content: "gamma\n" } },
          ];
          const lines = calls.map((call) => JSON.stringify(call) + "\n").join("");
          const changed = await skiff(root, sandbox, ["tool"], {}, lines);
          assert(changed.bundled);
          const answers = changed.stdout.trim().split("\n").map((line) => JSON.parse(line));
          assertEquals(answers.map((answer) => answer.ok), [true, true, true], changed.stdout);
          assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "a.txt")), "beta\n");
          assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "b.txt")), "gamma\n");
        });

        await t.step({
          name: "a command under bubblewrap",
          ignore: !found.bwrap,
          fn: async () => {
            const result = await skiff(root, sandbox, [
              "tool",
              "--yes",
              "bash",
              '{"command":"echo made > c.txt && cat c.txt"}',
            ], { SKIFF_SANDBOX_BACKEND: "bwrap" });
            assert(result.bundled);
            assertStringIncludes(toolOutput(result).output, "made");
            assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "c.txt")), "made\n");
          },
        });

        await t.step({
          name: "a command under Landlock: the exec step is found from the bundle",
          ignore: found.landlock === undefined,
          fn: async () => {
            const outside = path.join(sandbox.home, "outside.txt");
            const result = await skiff(root, sandbox, [
              "tool",
              "--yes",
              "bash",
              JSON.stringify({
                command:
                  `echo landlocked > d.txt && cat d.txt; touch ${outside} 2>/dev/null; echo rc=$?`,
              }),
            ], { SKIFF_SANDBOX_BACKEND: "landlock" });
            assert(result.bundled);
            const output = toolOutput(result).output;
            assertStringIncludes(output, "landlocked");
            // Writing outside the workspace is refused by the kernel.
            assertStringIncludes(output, "rc=1");
            assertEquals(await Deno.stat(outside).catch(() => null), null);
          },
        });

        await t.step("a skill whose frontmatter needs the YAML parser", async () => {
          const result = await skiff(root, sandbox, ["tool", "--yes", "skill", '{"name":"greet"}']);
          assert(result.bundled);
          assertStringIncludes(
            toolOutput(result).output,
            "Say hello twice.",
            result.stdout + result.stderr,
          );
        });

        await t.step("a model run with a tool call", async () => {
          const mock = startMockServer([
            { toolCalls: [{ name: "read", arguments: { file_path: "b.txt" } }] },
            { text: "all done" },
          ]);
          try {
            const result = await skiff(root, sandbox, ["run", "read b.txt"], {
              OPENAI_BASE_URL: mock.url,
              SKIFF_MODEL: "mock-model",
            });
            assertEquals(result.code, 0, result.stderr);
            assert(result.bundled);
            assertStringIncludes(result.stdout, "all done");
            assertStringIncludes(JSON.stringify(mock.requests[1]), "gamma");
          } finally {
            await mock.close();
          }
        });

        await t.step("an edited source, or SKIFF_BUNDLE=0, runs the sources", async () => {
          const optedOut = await skiff(root, sandbox, ["tool", "read", '{"file_path":"a.txt"}'], {
            SKIFF_BUNDLE: "0",
          });
          assertEquals(optedOut.bundled, false);
          assertStringIncludes(toolOutput(optedOut).output, "beta");
          const source = path.join(root, "src", "tools", "files", "read.ts");
          // An edit: a new time alone is not one (the stamp compares content then).
          await Deno.writeTextFile(source, "// edited\n", { append: true });
          const edited = await skiff(root, sandbox, ["tool", "read", '{"file_path":"a.txt"}']);
          assertEquals(edited.bundled, false, edited.stderr);
          assertStringIncludes(toolOutput(edited).output, "beta");
          // The Worker main.ts starts on the stale bundle is replaced by the sources' at once
          // (settlePrewarm), with the permissions remembered for the sources' engine.
          const again = await skiff(root, sandbox, ["tool", "read", '{"file_path":"a.txt"}']);
          assertEquals(again.bundled, false, again.stderr);
          assertStringIncludes(again.stderr, "prewarm-used");
          assertStringIncludes(toolOutput(again).output, "beta");
          assert(
            (await Deno.stat(path.join(root, BUNDLE_DIR, "start.js"))).isFile,
            "the stale build is left for the next `deno task build` to replace",
          );
        });

        await t.step("doctor says the bundle is stale, and its command rebuilds it", async () => {
          const stale = await skiff(root, sandbox, ["doctor"]);
          const line = stale.stdout.split("\n").find((text) => text.startsWith("  code: "));
          assertStringIncludes(
            line ?? stale.stdout,
            "src/tools/files/read.ts changed since the build",
          );
          const command = line?.match(/`([^`]+)`/)?.[1];
          assert(command, `no command in: ${line}`);
          // Run exactly as printed, from another folder.
          const rebuilt = await new Deno.Command("bash", {
            args: ["-c", command],
            cwd: sandbox.home,
            stderr: "piped",
          }).output();
          assert(rebuilt.success, new TextDecoder().decode(rebuilt.stderr));
          const fresh = await skiff(root, sandbox, ["doctor"]);
          assertStringIncludes(fresh.stdout, `  code: bundled (${root}/${BUNDLE_DIR})`);
          const read = await skiff(root, sandbox, ["tool", "read", '{"file_path":"a.txt"}']);
          assert(read.bundled, read.stderr);
        });
      } finally {
        await sandbox.cleanup();
      }
    });
  },
});
