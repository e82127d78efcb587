/**
 * The resolver resolves a workspace (or extra folder) whose path holds no
 * symlink once: every answer is the one resolving it each time gives, and a
 * workspace swapped for a symlink afterwards makes paths outside, never
 * inside (stricter than resolving it again, which would follow the link).
 * A workspace reached through a symlink is resolved each time, as before.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import {
  isWithin,
  realpathLenient,
  type ResolvedPath,
  resolveWorkspacePath,
} from "../../src/sandbox/paths.ts";

/** The resolver as it was: the workspace and extra folders realpath'd on every call. */
function resolvedEachTime(
  workspace: string,
  input: string,
  extraDirs: string[] = [],
): ResolvedPath {
  const root = realpathLenient(path.resolve(workspace));
  const requested = path.resolve(root, input);
  const real = realpathLenient(requested);
  const inWorkspace = isWithin(root, real);
  const inside = inWorkspace ||
    extraDirs.some((dir) => isWithin(realpathLenient(path.resolve(dir)), real));
  const relative = inWorkspace ? path.relative(root, real).split(path.sep).join("/") || "." : null;
  return { requested, real, relative, inside };
}

function layout() {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-folder-real-" }));
  const workspace = path.join(root, "ws");
  const extra = path.join(root, "extra");
  const outside = path.join(root, "outside");
  Deno.mkdirSync(path.join(workspace, "src"), { recursive: true });
  Deno.mkdirSync(extra);
  Deno.mkdirSync(outside);
  Deno.writeTextFileSync(path.join(outside, "secret.txt"), "s");
  Deno.writeTextFileSync(path.join(workspace, "src", "a.ts"), "a");
  Deno.symlinkSync(outside, path.join(workspace, "out-link"));
  Deno.symlinkSync(path.join(outside, "missing.txt"), path.join(workspace, "dangling"));
  Deno.symlinkSync(path.join(workspace, "src"), path.join(workspace, "src-link"));
  return { root, workspace, extra, outside };
}

const INPUTS = [
  ".",
  "src/a.ts",
  "src/../src/a.ts",
  "src//a.ts",
  "src/./new.ts",
  "src-link/a.ts",
  "out-link/secret.txt",
  "dangling",
  "new/folder/file.ts",
  "../outside/secret.txt",
  "../extra/e.txt",
  "../ws",
  "../wsx/a.ts",
  "/",
  "/etc/passwd",
];

Deno.test("a plain workspace resolved once answers every path as resolving it each time does", () => {
  const { root, workspace, extra } = layout();
  try {
    for (let pass = 0; pass < 2; pass++) {
      for (const input of INPUTS) {
        assertEquals(
          resolveWorkspacePath(workspace, input, [extra]),
          resolvedEachTime(workspace, input, [extra]),
          `${input} (pass ${pass})`,
        );
        // Given as written with a trailing slash or a `..`, the same folder.
        assertEquals(
          resolveWorkspacePath(`${workspace}/`, input),
          resolvedEachTime(`${workspace}/`, input),
          `${input} under ${workspace}/`,
        );
      }
    }
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a workspace swapped for a symlink after it was resolved: what the link reaches is outside", () => {
  const { root, workspace, outside } = layout();
  try {
    assertEquals(resolveWorkspacePath(workspace, "src/a.ts").inside, true);
    Deno.renameSync(workspace, path.join(root, "ws-moved"));
    Deno.symlinkSync(outside, workspace);
    const swapped = resolveWorkspacePath(workspace, "secret.txt");
    assertEquals(swapped.real, path.join(outside, "secret.txt"));
    assertEquals([swapped.inside, swapped.relative], [false, null]);
    // Resolving the workspace again would have followed the link into `outside`.
    assertEquals(resolvedEachTime(workspace, "secret.txt").inside, true);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a workspace reached through a symlink follows the link as it is now", () => {
  const { root, workspace, outside } = layout();
  const link = path.join(root, "ws-link");
  try {
    Deno.symlinkSync(workspace, link);
    const first = resolveWorkspacePath(link, "src/a.ts");
    assertEquals([first.inside, first.relative], [true, "src/a.ts"]);
    Deno.removeSync(link);
    Deno.symlinkSync(outside, link);
    const now = resolveWorkspacePath(link, "secret.txt");
    assertEquals(now, resolvedEachTime(link, "secret.txt"));
    assertEquals([now.inside, now.relative], [true, "secret.txt"]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
