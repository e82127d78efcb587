/**
 * realpathLenient with folder listings (the hidden list resolves ~30 mostly
 * missing paths at every start): a name its folder's listing proves absent
 * is passed over without asking the filesystem, and every answer must be
 * the one without listings, for existing and missing paths, dangling and
 * followed links, other case, `..` and paths through files. presenceOf
 * never calls `.` or `..` absent.
 */
import { assertEquals } from "../support/assert.ts";
import { realpathLenient } from "../../src/sandbox/paths.ts";
import { type Listings, presenceOf } from "../../src/sandbox/dir_entries.ts";
import { hiddenMounts, hiddenPaths } from "../../src/sandbox/hidden.ts";
import { workerPermissions } from "../../src/sandbox/worker_permissions.ts";

async function tree(): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-realpath-lists-" }));
  await Deno.mkdir(`${root}/home/.config/app`, { recursive: true });
  await Deno.mkdir(`${root}/elsewhere/deep`, { recursive: true });
  await Deno.writeTextFile(`${root}/home/.netrc`, "x");
  await Deno.writeTextFile(`${root}/home/File.txt`, "x");
  await Deno.symlink(`${root}/elsewhere`, `${root}/home/.aws`);
  await Deno.symlink(`${root}/nowhere/creds`, `${root}/home/.dangling`);
  await Deno.symlink("../elsewhere/deep", `${root}/home/.relative`);
  return root;
}

Deno.test("realpathLenient gives the same answers with listings as without", async () => {
  const root = await tree();
  try {
    const names = [
      "home/.config/app",
      "home/.config/app/missing",
      "home/.config/gcloud",
      "home/.config/gcloud/credentials.json",
      "home/.ssh",
      "home/.ssh/id_rsa",
      "home/.netrc",
      "home/.netrc/inside",
      "home/file.txt",
      "home/File.txt",
      "home/.aws",
      "home/.aws/deep/x",
      "home/.dangling",
      "home/.dangling/more",
      "home/.relative/y",
      "home/.config/../.ssh",
      "home/.config/..",
      "home/missing/../.netrc",
      "nothing/at/all",
    ];
    const shared: Listings = new Map();
    for (const name of names) {
      const target = `${root}/${name}`;
      const plain = realpathLenient(target);
      assertEquals(realpathLenient(target, 0, new Map()), plain, name);
      assertEquals(realpathLenient(target, 0, shared), plain, `${name} (shared listings)`);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("hiddenPaths and hiddenMounts: the existing entries, resolved as before", async () => {
  const root = await tree();
  try {
    const home = `${root}/home`;
    const hidden = hiddenPaths({
      home,
      workspace: `${root}/work`,
      configDir: `${home}/.config/skiff`,
      dataDir: `${home}/.local/share/skiff`,
    });
    // .aws is a link: hidden where it leads. The missing ones stay, as written.
    assertEquals(hidden.includes(`${root}/elsewhere`), true, hidden.join("\n"));
    assertEquals(hidden.includes(`${home}/.ssh`), true);
    assertEquals(
      hiddenMounts(hidden),
      hidden.flatMap((entry) => {
        try {
          const info = Deno.statSync(entry);
          return info.isDirectory || info.isFile ? [{ path: entry, folder: info.isDirectory }] : [];
        } catch {
          return [];
        }
      }),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("workerPermissions: the folders resolved as each alone would be", async () => {
  const root = await tree();
  try {
    const configDirs = [
      `${root}/home/.config/app`,
      `${root}/home/.claude/skills`,
      `${root}/home/.aws`,
    ];
    const systemRead = ["/etc/ssl", "/etc/pki", `${root}/home/.dangling`];
    const permissions = workerPermissions({
      mode: "workspace-write",
      workspace: `${root}/home`,
      dataDir: `${root}/home/.local/share/skiff`,
      configDirs,
      systemRead,
    });
    const each = [
      `${root}/home`,
      ...configDirs,
      `${root}/home/.local/share/skiff`,
      ...systemRead,
    ].map((dir) => realpathLenient(dir));
    assertEquals(permissions.read, [...new Set(each)]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** The folders `work` lists with Deno.readDirSync, in order, and what it returned. */
function listedBy<T>(work: () => T): { result: T; listed: string[] } {
  const listed: string[] = [];
  const readDirSync = Deno.readDirSync;
  Deno.readDirSync = (folder: string | URL) => {
    listed.push(String(folder));
    return readDirSync(folder);
  };
  try {
    return { result: work(), listed };
  } finally {
    Deno.readDirSync = readDirSync;
  }
}

Deno.test("workerPermissions: the workspace's, the data folder's and bash's folders are not listed", async () => {
  const root = await tree();
  await Deno.mkdir(`${root}/work/project`, { recursive: true });
  await Deno.mkdir(`${root}/data/skiff`, { recursive: true });
  try {
    // Listing /tmp or /usr/bin cost 4–5 ms each at every start (docs/performance.md).
    const { result: permissions, listed } = listedBy(() =>
      workerPermissions({
        mode: "workspace-write",
        workspace: `${root}/work/project`,
        dataDir: `${root}/data/skiff`,
        configDirs: [`${root}/home/.claude/skills`],
        systemRead: ["/usr/bin/bash", "/bin/bash", `${root}/etc/pki`],
      })
    );
    assertEquals(listed.includes(`${root}/work`), false, listed.join(" "));
    assertEquals(listed.includes(`${root}/data`), false, listed.join(" "));
    assertEquals(listed.some((folder) => /^\/(usr\/)?bin$/.test(folder)), false, listed.join(" "));
    // The mostly missing ones are still passed over by their folders' listings.
    assertEquals(listed.includes(`${root}/home/.claude`), true, listed.join(" "));
    assertEquals(permissions.write, [`${root}/work/project`, `${root}/data/skiff`]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("realpathLenient: a missing name in a listed folder does not list that folder's parent", async () => {
  const root = await tree();
  try {
    // The bench's config folder under a fresh /tmp folder listed all of /tmp (5–7 ms) to learn
    // that the folder it had just listed exists.
    const missing = `${root}/home/.config/app/missing/deeper`;
    const { result, listed } = listedBy(() => realpathLenient(missing, 0, new Map()));
    assertEquals(result, missing);
    assertEquals(listed.includes(`${root}/home/.config`), false, listed.join(" "));
    assertEquals(listed.includes(`${root}/home/.config/app`), true, listed.join(" "));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("presenceOf: `.` and `..` are never absent", async () => {
  const root = await tree();
  try {
    assertEquals(presenceOf(`${root}/home/..`), "unknown");
    assertEquals(presenceOf(`${root}/home/.`), "unknown");
    assertEquals(presenceOf(`${root}/home/.ssh`), "absent");
    assertEquals(presenceOf(`${root}/home/.netrc`), "listed");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
