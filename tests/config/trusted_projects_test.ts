import * as path from "node:path";
import { assertEquals, assertRejects } from "../support/assert.ts";
import { isTrustedProject, rememberTrustedProject } from "../../src/config/trusted_projects.ts";
import { parseJsonc } from "../../src/config/jsonc.ts";
import type { Config } from "../../src/config/schema.ts";

Deno.test("remembering a project keeps the other keys, stores the real path once, and is read back", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-trust-" }));
  try {
    const file = path.join(dir, "config", "config.json");
    await Deno.mkdir(path.dirname(file));
    await Deno.writeTextFile(file, '{\n  // mine\n  "maxTurns": 9,\n}\n');
    await Deno.mkdir(path.join(dir, "real"));
    await Deno.symlink(path.join(dir, "real"), path.join(dir, "link"));
    await rememberTrustedProject(file, path.join(dir, "link"));
    await rememberTrustedProject(file, path.join(dir, "real"));
    const config = parseJsonc(await Deno.readTextFile(file)) as Config;
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

Deno.test("remembering a project keeps the global config's comments, other keys and layout", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-trust-" }));
  try {
    const file = path.join(dir, "config.json");
    const before = `{
  // my model, chosen for price
  "model": "m1", /* not the big one */
  "trustedProjects": [
    "/srv/known", // the work repository
  ],
  /* limits */
  "maxTurns": 9,
}
`;
    await Deno.writeTextFile(file, before);
    await rememberTrustedProject(file, dir);
    const after = await Deno.readTextFile(file);
    for (
      const kept of [
        "// my model, chosen for price",
        '"model": "m1", /* not the big one */',
        "// the work repository",
        "/* limits */",
        '"maxTurns": 9,',
      ]
    ) {
      assertEquals(after.includes(kept), true, `${kept} is gone from:\n${after}`);
    }
    assertEquals(parseJsonc(after), {
      model: "m1",
      trustedProjects: ["/srv/known", dir],
      maxTurns: 9,
    });
    const fresh = path.join(dir, "fresh", "config.json");
    await rememberTrustedProject(fresh, dir);
    assertEquals(
      await Deno.readTextFile(fresh),
      `{\n  "trustedProjects": [\n    "${dir}"\n  ]\n}\n`,
    );
    assertEquals((await Deno.stat(fresh)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
