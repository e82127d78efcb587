/**
 * The string test `lexicallyWithin` uses for plain absolute paths gives the
 * answer `path.relative` gave before it (the resolver's containment and the
 * hidden-path check both rest on it), for every pair of a varied set of
 * paths, plain or not.
 */
import { assertEquals } from "../support/assert.ts";
import * as path from "node:path";
import { isWithin, lexicallyWithin } from "../../src/sandbox/paths.ts";
import { hiddenHolder } from "../../src/sandbox/hidden.ts";

/** What containment was computed as before: `path.relative` alone. */
function byRelative(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" ||
    (relative !== ".." && !relative.startsWith(".." + path.sep) && !path.isAbsolute(relative));
}

const PATHS = [
  "/",
  "/home",
  "/home/",
  "/home/u",
  "/home/u/",
  "/home/u/.ssh",
  "/home/u/.sshx",
  "/home/u/.ssh/id_rsa",
  "/home/u/.ssh/../.ssh/id_rsa",
  "/home/u/./.ssh",
  "/home/u//.ssh",
  "/home/u/.ssh/.",
  "/home/u/.ssh/..",
  "/home/u/..ssh",
  "/home/u/...",
  "/home/u/..",
  "/home/uu",
  "/home/u-2/.ssh",
  "/work/ws",
  "/work/ws/src/a.ts",
  "/work/ws/../ws2/a.ts",
  "/work/ws2",
  "relative/path",
  "",
  ".",
  "/Home/U/.SSH/key",
  "/home/u/.config/gcloud",
  "/home/u/.config/gcloud/x",
  "/home/u/.config/gcloudx",
  "/tmp/a b/c",
  "/tmp/ä/ö",
];

Deno.test("lexicallyWithin answers as path.relative did, for every pair of paths, plain or not", () => {
  for (const root of PATHS) {
    for (const candidate of PATHS) {
      assertEquals(
        lexicallyWithin(root, candidate),
        byRelative(root, candidate),
        `${JSON.stringify(root)} holds ${JSON.stringify(candidate)}?`,
      );
    }
  }
});

Deno.test("hiddenHolder names the same holder for hidden, neighbouring and workspace paths", () => {
  const hidden = ["/home/u/.ssh", "/home/u/.config/gcloud", "/data/skiff"];
  const cases: [string, string | null][] = [
    ["/home/u/.ssh", "/home/u/.ssh"],
    ["/home/u/.ssh/id_rsa", "/home/u/.ssh"],
    ["/home/u/.sshx/id_rsa", null],
    ["/home/u/.config/gcloud/creds.json", "/home/u/.config/gcloud"],
    ["/home/u/.config/gcloudx", null],
    ["/data/skiff/skiff.db", "/data/skiff"],
    ["/data/skiffy/skiff.db", null],
    ["/work/ws/src/a.ts", null],
    ["/home/u", null],
  ];
  for (const [real, holder] of cases) assertEquals(hiddenHolder(hidden, real), holder, real);
  // An entry of `/` holds everything.
  assertEquals(hiddenHolder(["/"], "/work/ws/a.ts"), "/");
});

/** hiddenHolder as it was: each entry compared with path.relative, case folded, then isWithin. */
function holderBefore(hidden: readonly string[], real: string): string | null {
  return hidden.find((entry) =>
    byRelative(entry.toLowerCase(), real.toLowerCase()) && isWithin(entry, real)
  ) ?? null;
}

Deno.test("hiddenHolder with its folded entries kept per list names the holder it named before, also after the list changes", () => {
  const hidden = [
    "/home/u/.ssh",
    "/home/u/./.aws",
    "/home/u/.config/gcloud/",
    "/HOME/U/.KUBE",
    "/data//skiff",
    "relative/entry",
  ];
  const targets = [
    ...PATHS,
    "/home/u/.aws/credentials",
    "/home/u/.config/gcloud/x.json",
    "/home/u/.kube/config",
    "/HOME/U/.KUBE/config",
    "/data/skiff/skiff.db",
    "/home/u/.gnupg/key",
  ];
  const check = () => {
    for (const real of targets) {
      assertEquals(hiddenHolder(hidden, real), holderBefore(hidden, real), real);
    }
  };
  check();
  check(); // the folded entries of the same list, reused
  hidden[0] = "/home/u/.gnupg";
  check(); // an entry changed in place: folded again
  hidden.push("/work/ws/src");
  check(); // and one added
});
