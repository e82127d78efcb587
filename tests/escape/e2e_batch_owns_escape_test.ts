/**
 * End to end, the model as the attacker, through a batch task's `owns`
 * (issue 29 item 8). Under bubblewrap a task that owns some paths gets a
 * sandbox whose only writable roots are those paths; an owned path that was
 * a symbolic link made the link's target, outside the workspace, writable.
 * Owns are now judged by real path (the task tool's `ownedPath`): a link
 * leading out is refused when the task list is read, and one planted later
 * (by an earlier task) stays read-only when the task's sandbox is built.
 * Each attack has its control: an owned folder that is not a link is
 * writable.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import {
  type AttackSandbox,
  bash,
  exists,
  hasBwrap,
  needsBwrap,
  withAttack,
} from "./e2e_support.ts";

if (!hasBwrap) {
  console.warn(
    "!!! e2e_batch_owns_escape_test: bubblewrap is missing; these tests are skipped !!!",
  );
}

type Body = Record<string, unknown>;

/** The first user message of a request: which task it belongs to. */
function promptOf(body: Body): string {
  const messages = body.messages as { role: string; content: unknown }[];
  return String(messages.find((message) => message.role === "user")?.content ?? "");
}

/** Each task runs the command its prompt names (`run: <command>`), then says done. */
function runsItsPrompt(body: Body): MockTurn {
  const answered = (body.messages as { role: string }[]).some((message) => message.role === "tool");
  if (answered) return { text: "done" };
  return { toolCalls: [bash(promptOf(body).replace(/^run: /, ""))] };
}

async function writeTasks(sandbox: AttackSandbox, tasks: Record<string, unknown>[]) {
  const file = path.join(sandbox.root, "tasks.jsonl");
  await Deno.writeTextFile(file, tasks.map((task) => JSON.stringify(task)).join("\n") + "\n");
  return file;
}

const batchArgs = (file: string) => ["batch", file, "-j", "1", "--allow", "bash(*)"];

Deno.test({
  name: "batch owns attack: an owned path that links outside is refused before any task runs",
  ...needsBwrap,
  fn: () =>
    withAttack([], async (sandbox, mock) => {
      await Deno.symlink(sandbox.outside, path.join(sandbox.workspace, "gen"));
      const mark = path.join(sandbox.outside, "pwned.txt");
      const file = await writeTasks(sandbox, [
        { id: "t", prompt: `run: touch ${mark}`, owns: ["gen"] },
      ]);
      const run = await runSkiff(batchArgs(file), sandbox);
      assertEquals(await exists(mark), false, "the link's target outside was writable");
      assertEquals(run.code, 2, run.stdout + run.stderr);
      assertStringIncludes(run.stderr, `"owns" path "gen" leads outside the task's workspace`);
      assertEquals(mock.requests.length, 0, "nothing ran");
    }, { respond: runsItsPrompt }),
});

Deno.test({
  name: "batch owns attack: a link planted at an owned path by an earlier task stays read-only",
  ...needsBwrap,
  fn: () =>
    withAttack([], async (sandbox) => {
      const later = path.join(sandbox.workspace, "later");
      await Deno.mkdir(later);
      const link = path.join(later, "gen");
      const mark = path.join(sandbox.outside, "pwned.txt");
      const file = await writeTasks(sandbox, [
        // The first task's workspace holds the second's: it plants the link there.
        { id: "plant", prompt: `run: ln -s ${sandbox.outside} ${link}` },
        { id: "use", dir: "later", prompt: `run: touch ${mark}`, owns: ["gen"] },
      ]);
      const run = await runSkiff([...batchArgs(file), "--json"], sandbox);
      assertEquals((await Deno.lstat(link)).isSymlink, true, "the first task planted the link");
      assertEquals(await exists(mark), false, "the planted link's target outside was writable");
      assertStringIncludes(run.stdout, "now leads outside the workspace");
    }, { respond: runsItsPrompt }),
});

Deno.test({
  name: "batch owns control: an owned folder that is not a link is writable to the task's commands",
  ...needsBwrap,
  fn: () =>
    withAttack([], async (sandbox) => {
      await Deno.mkdir(path.join(sandbox.workspace, "gen"));
      const mark = path.join(sandbox.workspace, "gen", "made.txt");
      const file = await writeTasks(sandbox, [
        { id: "t", prompt: `run: touch ${mark}`, owns: ["gen"] },
      ]);
      const run = await runSkiff(batchArgs(file), sandbox);
      assertEquals(run.code, 0, run.stdout + run.stderr);
      assertEquals(await exists(mark), true, "the owned folder is writable");
    }, { respond: runsItsPrompt }),
});
