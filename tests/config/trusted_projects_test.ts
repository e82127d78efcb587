import * as path from "node:path";
import { assertEquals, assertRejects } from "../support/assert.ts";
import { isTrustedProject, rememberTrustedProject } from "../../src/config/trusted_projects.ts";

Deno.test("remembering a project keeps the other keys, stores the real path once, and is read back", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-trust-" }));
  try {
    const file = path.join(dir, "config", "config.json");
    await Deno.mkdir(path.dirname(file));
    await Deno.writeTextFile(file, '{\n  // mine\n  "maxTurns": 9,\n}\n');
    await Deno.mkdir(path.join(dir, "real"));
    await Deno.symlink(path.join(dir, "real"), path.join(dir, "link"));
    const saved = await rememberTrustedProject(file, path.join(dir, "link"));
    await rememberTrustedProject(file, path.join(dir, "real"));
    assertEquals(saved.droppedComments, true);
    const config = JSON.parse(await Deno.readTextFile(file));
    assertEquals(config, { maxTurns: 9, trustedProjects: [path.join(dir, "real")] });
    assertEquals(isTrustedProject(config, path.join(dir, "link")), true);
    assertEquals(isTrustedProject(config, dir), false);
    assertEquals([...Deno.readDirSync(path.dirname(file))].map((entry) => entry.name), [
      "config.json",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a global config that does not parse is left alone and the error says what to do", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-trust-" });
  try {
    const file = path.join(dir, "config.json");
    await Deno.writeTextFile(file, "{ nope");
    await assertRejects(() => rememberTrustedProject(file, dir), Error, "--trust-project");
    assertEquals(await Deno.readTextFile(file), "{ nope");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
