import * as path from "node:path";
import { assertEquals, assertRejects } from "../support/assert.ts";
import { projectConfigTarget, saveProjectRule } from "../../src/permission/project_rules.ts";
import { parseJsonc } from "../../src/config/jsonc.ts";

async function tempProject(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-rules-" }));
  await Deno.mkdir(path.join(dir, ".git"));
  return dir;
}

Deno.test("saveProjectRule creates skiff.json when there is no project config", async () => {
  const dir = await tempProject();
  const saved = await saveProjectRule(dir, "bash", ["git log *", "*"]);
  assertEquals(saved.file, path.join(dir, "skiff.json"));
  assertEquals(JSON.parse(await Deno.readTextFile(saved.file)), {
    permission: { bash: { "git log *": "allow" } },
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("saveProjectRule merges into .skiff/config.json, keeping other keys and comments", async () => {
  const dir = await tempProject();
  const file = path.join(dir, ".skiff", "config.json");
  await Deno.mkdir(path.dirname(file));
  await Deno.writeTextFile(
    file,
    `{\n  // my model\n  "model": "m1", /* note */\n  "permission": { "bash": "ask", "edit": { "*.env": "deny" }, },\n}\n`,
  );
  const sub = path.join(dir, "packages", "app");
  await Deno.mkdir(sub, { recursive: true });
  assertEquals(await projectConfigTarget(sub), file);
  const saved = await saveProjectRule(sub, "bash", ["npm run build *"]);
  assertEquals(saved, { file });
  const after = await Deno.readTextFile(file);
  for (const comment of ["// my model", "/* note */"]) assertEquals(after.includes(comment), true);
  assertEquals(parseJsonc(after), {
    model: "m1",
    permission: { bash: { "*": "ask", "npm run build *": "allow" }, edit: { "*.env": "deny" } },
  });
  assertEquals([...Deno.readDirSync(path.dirname(file))].map((e) => e.name), ["config.json"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("saveProjectRule refuses to overwrite a broken file", async () => {
  const dir = await tempProject();
  await Deno.writeTextFile(path.join(dir, "skiff.json"), "{ nope");
  await assertRejects(() => saveProjectRule(dir, "bash", ["ls *"]), Error, "not valid JSON");
  assertEquals(await Deno.readTextFile(path.join(dir, "skiff.json")), "{ nope");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("saving keeps comment-like text inside strings", async () => {
  const dir = await tempProject();
  const file = path.join(dir, "skiff.json");
  await Deno.writeTextFile(
    file,
    `{"provider": {"baseURL": "http://x//y"}, /* c */ "maxTurns": 3,}`,
  );
  await saveProjectRule(dir, "read", ["*.md"]);
  const after = await Deno.readTextFile(file);
  assertEquals(after.includes("/* c */"), true);
  assertEquals(parseJsonc(after), {
    provider: { baseURL: "http://x//y" },
    maxTurns: 3,
    permission: { read: { "*.md": "allow" } },
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a project config above the workspace is the one written, not a new nearer file", async () => {
  const dir = await tempProject();
  await Deno.writeTextFile(path.join(dir, "skiff.json"), `{"maxTurns": 7}`);
  const sub = path.join(dir, "packages", "app");
  await Deno.mkdir(sub, { recursive: true });
  const saved = await saveProjectRule(sub, "bash", ["npm test *"]);
  assertEquals(saved.file, path.join(dir, "skiff.json"));
  const exists = await Deno.stat(path.join(sub, "skiff.json")).then(() => true, () => false);
  assertEquals(exists, false);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an always rule added to a commented project config keeps every comment and key", async () => {
  const dir = await tempProject();
  const file = path.join(dir, "skiff.json");
  await Deno.writeTextFile(
    file,
    `{
  // shared by the team
  "model": "m1",
  "permission": {
    "bash": {
      "npm test *": "allow", // the tests are safe
    },
    /* never the secrets */
    "read": { "*.env": "deny" },
  },
}
`,
  );
  await saveProjectRule(dir, "bash", ["git log *"]);
  assertEquals(
    await Deno.readTextFile(file),
    `{
  // shared by the team
  "model": "m1",
  "permission": {
    "bash": {
      "npm test *": "allow", // the tests are safe
      "git log *": "allow",
    },
    /* never the secrets */
    "read": { "*.env": "deny" },
  },
}
`,
  );
  await Deno.remove(dir, { recursive: true });
});
