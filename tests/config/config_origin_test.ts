/**
 * One reading of the config files answers both "what is the merged config"
 * and "which layer said this"; an untrusted project is judged from that same
 * reading, without opening a file again.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { loadConfig } from "../../src/config/load.ts";
import { distrustProject, layerValue, originOf } from "../../src/config/origin.ts";

/** A fake home with a workspace inside it, and a reader that counts what it reads. */
async function box(files: Record<string, string>) {
  const root = await Deno.makeTempDir({ prefix: "skiff-origin-" });
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(root, name);
    await Deno.mkdir(path.dirname(file), { recursive: true });
    await Deno.writeTextFile(file, text);
  }
  const home = path.join(root, "home");
  const workspace = path.join(home, "work", "app");
  await Deno.mkdir(workspace, { recursive: true });
  const reads: string[] = [];
  return {
    home,
    workspace,
    reads,
    readTextFile: (file: string) => {
      reads.push(file);
      return Deno.readTextFile(file);
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const GLOBAL = "home/.config/skiff/config.json";
const PROJECT = "home/work/app/skiff.json";

Deno.test("originOf names the layer that decided each value", async () => {
  await using files = await box({
    [GLOBAL]:
      `{ "provider": { "model": "global-model", "maxRetries": 2 }, "sandbox": { "network": true } }`,
    [PROJECT]: `{ "provider": { "model": "project-model" }, "sandbox": { "mode": "read-only" } }`,
  });
  const loaded = await loadConfig({
    workspace: files.workspace,
    home: files.home,
    env: { OPENAI_BASE_URL: "http://env/v1" },
    flags: { sandbox: { mode: "workspace-write" } },
    readTextFile: files.readTextFile,
  });
  assertEquals(originOf(loaded, ["provider", "model"]), "project");
  assertEquals(originOf(loaded, ["provider", "maxRetries"]), "global");
  assertEquals(originOf(loaded, ["provider", "baseURL"]), "env");
  assertEquals(originOf(loaded, ["sandbox", "mode"]), "flags");
  assertEquals(originOf(loaded, ["sandbox", "network"]), "global");
  assertEquals(originOf(loaded, ["maxTurns"]), "default");
  assertEquals(layerValue(loaded, "global", ["provider", "model"]), "global-model");
  assertEquals(layerValue(loaded, "project", ["sandbox", "mode"]), "read-only");
  assertEquals(layerValue(loaded, "env", ["sandbox", "mode"]), undefined);
});

Deno.test("an untrusted project loses its allow rules without any file being read again", async () => {
  await using files = await box({
    [GLOBAL]: `{ "permission": { "webfetch": "allow" } }`,
    [PROJECT]: `{
      "permission": { "bash": { "git *": "allow", "rm *": "deny" }, "edit": "allow", "read": "ask" },
      "agent": { "fixer": { "permission": { "bash": "allow", "webfetch": "deny" } } }
    }`,
  });
  const loaded = await loadConfig({
    workspace: files.workspace,
    home: files.home,
    env: {},
    readTextFile: files.readTextFile,
  });
  assertEquals(files.reads.length, 2, "the global and the project file, once each");
  const strict = distrustProject(loaded);
  assertEquals(files.reads.length, 2, "distrusting the project reads nothing");

  assertEquals(strict.config.permission, {
    webfetch: "allow",
    bash: { "rm *": "deny" },
    read: "ask",
  });
  assertEquals(strict.config.agent?.fixer.permission, { webfetch: "deny" });
  assertEquals(strict.layers.map((layer) => [layer.source, layer.permission]), [
    ["global", { webfetch: "allow" }],
    ["project", { bash: { "rm *": "deny" }, read: "ask" }],
  ]);
  assertEquals(strict.ignoredProjectAllows, ["bash(git *)", "edit", "agent fixer: bash"]);
  // The project file's own word is kept whole, for messages and the other trust rules.
  assertEquals(strict.project?.config.permission?.edit, "allow");
  // The trusted view is untouched.
  assertEquals(loaded.config.permission?.edit, "allow");
});

Deno.test("distrusting a workspace without a project file changes nothing", async () => {
  await using files = await box({ [GLOBAL]: `{ "permission": { "bash": "allow" } }` });
  const loaded = await loadConfig({ workspace: files.workspace, home: files.home, env: {} });
  assertEquals(distrustProject(loaded), loaded);
});
