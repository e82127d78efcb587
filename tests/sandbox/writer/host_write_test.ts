/**
 * The host writer (src/sandbox/writer/host_write.ts): what it does with a link at
 * the name, a folder linked out, modes, and the user's own paths. The end to
 * end attacks through the CLI are in tests/escape/e2e_host_write_escape_test.ts.
 */
import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import {
  HostWriteRefused,
  namedWithin,
  writeHostFile,
} from "../../../src/sandbox/writer/host_write.ts";
import { saveProjectRule } from "../../../src/permission/project_rules.ts";
import { rememberTrustedProject } from "../../../src/config/trusted_projects.ts";

/** A project folder and an outside folder holding `bashrc`, in one temp root. */
async function withFolders(
  fn: (folders: { project: string; outside: string; bashrc: string }) => Promise<void> | void,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-host-write-" }));
  const project = path.join(root, "project");
  const outside = path.join(root, "outside");
  await Deno.mkdir(project);
  await Deno.mkdir(outside);
  const bashrc = path.join(outside, "bashrc");
  await Deno.writeTextFile(bashrc, "# setup\n");
  try {
    await fn({ project, outside, bashrc });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Nothing but `names` in `folder`: no temp file left behind. */
function assertOnly(folder: string, names: string[]): void {
  assertEquals([...Deno.readDirSync(folder)].map((entry) => entry.name).sort(), names.sort());
}

Deno.test("host write: a link at the name is replaced by a regular file; its target is untouched", () =>
  withFolders(async ({ project, bashrc }) => {
    const file = path.join(project, "review.md");
    Deno.symlinkSync(bashrc, file);
    Deno.chmodSync(bashrc, 0o755);
    const written = await writeHostFile(file, "answer\n", { within: project });
    assertEquals(written.replacedLink, bashrc);
    assertEquals(Deno.readTextFileSync(bashrc), "# setup\n");
    assertEquals(Deno.statSync(bashrc).mode! & 0o777, 0o755);
    assert(Deno.lstatSync(file).isFile, "the link is still there");
    assertEquals(Deno.readTextFileSync(file), "answer\n");
    // The link lends no mode: the model's answer must not become an executable.
    assertEquals(Deno.statSync(file).mode! & 0o111, 0);
    assertOnly(project, ["review.md"]);
  }));

Deno.test("host write: a folder linked out of `within` is refused, naming the link and the fix", () =>
  withFolders(async ({ project, outside }) => {
    Deno.symlinkSync(outside, path.join(project, ".skiff"));
    const error = await assertRejects(
      () => writeHostFile(path.join(project, ".skiff", "done.json"), "{}\n", { within: project }),
      HostWriteRefused,
    ) as HostWriteRefused;
    assertEquals(error.link, path.join(project, ".skiff"));
    assertEquals(error.leadsTo, outside);
    assert(error.hint?.includes(`rm ${path.join(project, ".skiff")}`), error.hint);
    assertOnly(outside, ["bashrc"]);
    // Deeper links and a dangling one are judged by where they lead too.
    Deno.mkdirSync(path.join(project, "a"));
    Deno.symlinkSync(path.join(outside, "later"), path.join(project, "a", "b"));
    await assertRejects(
      () => writeHostFile(path.join(project, "a", "b", "c", "x.md"), "x", { within: project }),
      HostWriteRefused,
      "a/b is a symbolic link",
    );
    assertOnly(outside, ["bashrc"]);
  }));

Deno.test("host write: a folder link that stays inside `within` is an ordinary layout", () =>
  withFolders(async ({ project }) => {
    Deno.mkdirSync(path.join(project, "real"));
    Deno.symlinkSync("real", path.join(project, "out"));
    const written = await writeHostFile(path.join(project, "out", "x.md"), "x\n", {
      within: project,
    });
    assertEquals(written.file, path.join(project, "real", "x.md"));
    assertEquals(Deno.readTextFileSync(path.join(project, "real", "x.md")), "x\n");
  }));

Deno.test("host write: a replaced regular file keeps its mode; a new one gets newMode", () =>
  withFolders(async ({ project }) => {
    const kept = path.join(project, "kept.md");
    Deno.writeTextFileSync(kept, "old\n");
    Deno.chmodSync(kept, 0o640);
    await writeHostFile(kept, "new\n", { within: project });
    assertEquals(Deno.statSync(kept).mode! & 0o777, 0o640);
    const fresh = path.join(project, "config.json");
    await writeHostFile(fresh, "{}\n", { newMode: 0o600 });
    assertEquals(Deno.statSync(fresh).mode! & 0o777, 0o600);
  }));

Deno.test({
  name: "host write: a FIFO planted at the name is replaced, not written into (which would hang)",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withFolders(async ({ project }) => {
      const fifo = path.join(project, "review.md");
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assert(made.success, "mkfifo failed");
      await writeHostFile(fifo, "answer\n", { within: project });
      assert(Deno.lstatSync(fifo).isFile);
      assertEquals(Deno.readTextFileSync(fifo), "answer\n");
    }),
});

Deno.test("host write: the user's own path outside every named folder writes through their link", () =>
  withFolders(async ({ project, outside, bashrc }) => {
    // A dotfiles-style link the user made, and /dev/null: both stay what they are.
    const link = path.join(outside, "config.json");
    Deno.symlinkSync(bashrc, link);
    await writeHostFile(link, "{}\n");
    assert(Deno.lstatSync(link).isSymlink, "the user's link was replaced");
    assertEquals(Deno.readTextFileSync(bashrc), "{}\n");
    await writeHostFile("/dev/null", "x");
    assert(Deno.statSync("/dev/null").isCharDevice, "/dev/null was replaced");
    assertEquals(namedWithin(link, [project]), undefined);
  }));

Deno.test("namedWithin: the outermost named folder holding the path, by its name", () => {
  assertEquals(namedWithin("/w/sub/out.md", ["/w/sub", "/w", "/x"]), "/w");
  assertEquals(namedWithin("/w/../x/a.md", ["/w", "/x"]), "/x");
  assertEquals(namedWithin("/elsewhere/a.md", ["/w"]), undefined);
});

Deno.test("saveProjectRule: a `.skiff` linked out of the project is refused; the outside config is untouched", () =>
  withFolders(async ({ project, outside }) => {
    Deno.mkdirSync(path.join(project, ".git"));
    const outsideConfig = path.join(outside, "config.json");
    Deno.writeTextFileSync(outsideConfig, "{}\n");
    Deno.symlinkSync(outside, path.join(project, ".skiff"));
    await assertRejects(
      () => saveProjectRule(project, "bash", ["npm test *"]),
      HostWriteRefused,
      ".skiff is a symbolic link",
    );
    assertEquals(Deno.readTextFileSync(outsideConfig), "{}\n");
  }));

Deno.test("rememberTrustedProject: a global config the user linked (dotfiles) stays a link, written through", () =>
  withFolders(async ({ project, outside }) => {
    const dotfile = path.join(outside, "skiff.json");
    Deno.writeTextFileSync(dotfile, "{}\n");
    const configDir = path.join(project, "config");
    Deno.mkdirSync(configDir);
    const file = path.join(configDir, "config.json");
    Deno.symlinkSync(dotfile, file);
    await rememberTrustedProject(file, project);
    assert(Deno.lstatSync(file).isSymlink, "the user's link was replaced");
    assertEquals(JSON.parse(Deno.readTextFileSync(dotfile)).trustedProjects, [project]);
    // A new global config is private: it may hold an API key later.
    const fresh = path.join(configDir, "fresh.json");
    await rememberTrustedProject(fresh, project);
    assertEquals(Deno.statSync(fresh).mode! & 0o777, 0o600);
  }));
