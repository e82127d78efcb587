import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import {
  displayPath,
  expandHome,
  homeDir,
  isCaseInsensitive,
  isWithin,
  realpathLenient,
  resolveWorkspacePath,
  stillResolvesTo,
} from "../../src/sandbox/paths.ts";

function layout() {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-paths-" }));
  const workspace = path.join(root, "ws");
  const outside = path.join(root, "outside");
  Deno.mkdirSync(path.join(workspace, "src"), { recursive: true });
  Deno.mkdirSync(outside);
  Deno.writeTextFileSync(path.join(outside, "secret.txt"), "s");
  return { root, workspace, outside, done: () => Deno.removeSync(root, { recursive: true }) };
}

Deno.test("relative paths anchor at the workspace; .. is normalised", () => {
  const { workspace, done } = layout();
  const inner = resolveWorkspacePath(workspace, "src/../src/a.ts");
  assertEquals([inner.relative, inner.inside], ["src/a.ts", true]);
  const escape = resolveWorkspacePath(workspace, "src/../../outside/secret.txt");
  assertEquals([escape.relative, escape.inside], [null, false]);
  assertEquals(displayPath(escape), escape.real);
  assertEquals(resolveWorkspacePath(workspace, ".").relative, ".");
  done();
});

Deno.test("~ expands to the home folder", () => {
  assertEquals(expandHome("~"), homeDir());
  assertEquals(expandHome("~/x"), path.join(homeDir(), "x"));
  assertEquals(expandHome("a/~/b"), "a/~/b");
});

Deno.test("a symlink inside pointing out is outside, file or folder", () => {
  const { workspace, outside, done } = layout();
  Deno.symlinkSync(path.join(outside, "secret.txt"), path.join(workspace, "link.txt"));
  Deno.symlinkSync(outside, path.join(workspace, "dirlink"));
  assertEquals(resolveWorkspacePath(workspace, "link.txt").inside, false);
  assertEquals(resolveWorkspacePath(workspace, "dirlink/secret.txt").inside, false);
  assertEquals(resolveWorkspacePath(workspace, "dirlink/new-file.txt").inside, false);
  done();
});

Deno.test("a dangling symlink is judged by its target, not its name", () => {
  const { workspace, outside, done } = layout();
  Deno.symlinkSync(path.join(outside, "not-yet"), path.join(workspace, "dangling"));
  const resolved = resolveWorkspacePath(workspace, "dangling");
  assertEquals([resolved.inside, resolved.real], [false, path.join(outside, "not-yet")]);
  Deno.symlinkSync(path.join(outside, "nodir"), path.join(workspace, "dangling-dir"));
  assertEquals(
    resolveWorkspacePath(workspace, "dangling-dir/x/y").real,
    path.join(outside, "nodir", "x", "y"),
  );
  done();
});

Deno.test("a symlink loop does not hang the resolver", () => {
  const { workspace, done } = layout();
  Deno.symlinkSync(path.join(workspace, "b"), path.join(workspace, "a"));
  Deno.symlinkSync(path.join(workspace, "a"), path.join(workspace, "b"));
  const resolved = resolveWorkspacePath(workspace, "a/file");
  assert(typeof resolved.real === "string");
  done();
});

Deno.test("a workspace given through a symlink still contains its files", () => {
  const { root, workspace, done } = layout();
  const alias = path.join(root, "alias");
  Deno.symlinkSync(workspace, alias);
  const resolved = resolveWorkspacePath(alias, "src/a.ts");
  assertEquals([resolved.inside, resolved.relative], [true, "src/a.ts"]);
  done();
});

Deno.test("isWithin: siblings with a shared prefix and '..name' files", () => {
  assertEquals(isWithin("/a/ws", "/a/ws2/x"), false);
  assertEquals(isWithin("/a/ws", "/a/ws/..hidden"), true);
  assertEquals(isWithin("/a/ws", "/a/ws"), true);
  assertEquals(isWithin("/a/ws", "/a"), false);
});

Deno.test("case: follows what the filesystem does", () => {
  const { workspace, done } = layout();
  const insensitive = isCaseInsensitive(workspace);
  const upper = path.join(path.dirname(workspace), "WS", "src");
  // On Linux (case-sensitive) "WS" is another folder; on a case-insensitive disk it is the same.
  assertEquals(isWithin(workspace, upper), insensitive);
  if (Deno.build.os === "linux") assertEquals(insensitive, false);
  done();
});

Deno.test("/proc/self/root resolves to the real path it names", {
  ignore: Deno.build.os !== "linux",
}, () => {
  const { workspace, done } = layout();
  assertEquals(
    resolveWorkspacePath(workspace, "/proc/self/root/etc/hostname").real,
    realpathLenient("/etc/hostname"),
  );
  assertEquals(resolveWorkspacePath(workspace, "/proc/self/root/etc/hostname").inside, false);
  done();
});

Deno.test("stillResolvesTo notices a folder swapped for a symlink after the check", () => {
  const { workspace, outside, done } = layout();
  const checked = resolveWorkspacePath(workspace, "src/a.ts");
  assertEquals(stillResolvesTo(checked, workspace), true);
  Deno.removeSync(path.join(workspace, "src"), { recursive: true });
  Deno.symlinkSync(outside, path.join(workspace, "src"));
  assertEquals(stillResolvesTo(checked, workspace), false);
  done();
});
