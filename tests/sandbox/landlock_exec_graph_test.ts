/**
 * The Landlock exec step starts once per command, so what it loads is paid
 * by every sandboxed command under Landlock: `node:path` alone cost it about
 * 15–35 ms (docs/performance.md, "Sandboxed commands"). These tests keep
 * its module graph free of Node's compatibility layer and check that the
 * read rules it builds without `node:path` still tell a folder from a
 * sibling whose name starts the same way.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { fileURLToPath } from "node:url";
import { isWithinAbsolute, READ_RIGHTS, readRules } from "../../src/sandbox/landlock/read_rules.ts";
import { FsAccess } from "../../src/sandbox/landlock/landlock.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
const STEP = fileURLToPath(new URL("../../src/sandbox/landlock/exec.ts", import.meta.url));

async function moduleGraph(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-config", "--no-lock", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string }[];
  };
  return info.modules.map((module) => module.specifier);
}

Deno.test("exec step graph: main.ts's hidden step loads no node: module and nothing outside its four files", async () => {
  const graph = await moduleGraph(STEP);
  assertEquals(graph.filter((specifier) => specifier.startsWith("node:")), []);
  const files = graph.map((specifier) => specifier.replace(/^.*\/src\/sandbox\//, "")).sort();
  assertEquals(files, [
    "landlock/exec.ts",
    "landlock/landlock.ts",
    "landlock/plan.ts",
    "landlock/read_rules.ts",
  ]);
  // main.ts itself, which dispatches the step before loading the CLI, stays as small.
  const entry = await moduleGraph(MAIN);
  assertEquals(entry.filter((specifier) => specifier.startsWith("node:")), []);
});

Deno.test("exec step graph: a sibling whose name starts like a hidden folder is granted whole", () => {
  assert(isWithinAbsolute("/home/me", "/home/me/.ssh"));
  assert(isWithinAbsolute("/", "/home"));
  assert(isWithinAbsolute("/home/me", "/home/me"));
  assert(!isWithinAbsolute("/home/me/.ss", "/home/me/.ssh"));
  assert(!isWithinAbsolute("/home/me/.ssh", "/home/me"));
  const tree: Record<string, { name: string; folder: boolean }[]> = {
    "/": [{ name: "home", folder: true }],
    "/home": [{ name: "me", folder: true }],
    "/home/me": [{ name: ".ss", folder: true }, { name: ".ssh", folder: true }],
  };
  const rules = new Map(readRules(["/home/me/.ssh"], (dir) => tree[dir]));
  assertEquals(rules.get("/home/me/.ss"), READ_RIGHTS);
  assertEquals(rules.get("/home/me"), FsAccess.readDir);
  assertEquals(rules.has("/home/me/.ssh"), false);
});

Deno.test("exec step graph: the filesystem is asked about case only for names that differ in case alone", () => {
  const asked: string[] = [];
  const statSync = Deno.statSync;
  Deno.statSync = (target: string | URL) => {
    asked.push(String(target));
    return statSync(target);
  };
  try {
    assert(!isWithinAbsolute("/usr", "/root/.ssh"));
    assert(isWithinAbsolute("/root", "/root/.ssh"));
    assertEquals(asked, []);
    // Differs in case alone: asked (this machine's /ROOT, if any, decides).
    isWithinAbsolute("/ROOT", "/root/.ssh");
    assert(asked.length > 0);
  } finally {
    Deno.statSync = statSync;
  }
});
