/**
 * A file's metadata outside the workspace — its mode (chmod), times
 * (utimes) and extended attributes — changed by a model's command through
 * `skiff run`. bubblewrap binds `/` read-only, so each change fails; under
 * Landlock it succeeds (Landlock has no right for these, and a seccomp
 * filter cannot read the path): the gap docs/security.md ("The Landlock
 * backend") and `skiff doctor` name, kept honest by a test that fails the
 * day it closes. Controls: `--sandbox full-access` changes all three.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import {
  type AttackSandbox,
  bash,
  lastToolResults,
  needsBwrap,
  withAttack,
} from "./e2e_support.ts";

const PYTHON = "/usr/bin/python3";
const hasPython = (() => {
  try {
    return Deno.statSync(PYTHON).isFile;
  } catch {
    return false;
  }
})();
if (!hasPython) {
  console.warn(`\n!!! METADATA E2E: ${PYTHON} is missing; xattrs are not tried. !!!\n`);
}

const found = await probeSandboxes();
if (!found.landlock) {
  console.warn(
    `\n!!! METADATA E2E: Landlock does not work here (${found.reasons?.landlock}); its test SKIPPED. !!!\n`,
  );
}

/** The attempt on `target`: mode 0777, mtime 2001, a `user.skiff` attribute. */
function attack(target: string): string {
  const xattr = hasPython
    ? `; ${PYTHON} -c "import os; os.setxattr('${target}', 'user.skiff', b'x')" && echo XATTR`
    : "";
  return `chmod 777 ${target} && echo CHMOD; touch -m -d 2001-01-01 ${target} && echo UTIME${xattr}`;
}

interface Metadata {
  mode: number;
  mtime: number;
  xattr: boolean;
}

function metadata(target: string): Metadata {
  const info = Deno.statSync(target);
  let xattr = false;
  if (hasPython) {
    const read = new Deno.Command(PYTHON, {
      args: [
        "-c",
        `import os, sys; sys.exit(0 if 'user.skiff' in os.listxattr('${target}') else 1)`,
      ],
    }).outputSync();
    xattr = read.success;
  }
  return { mode: info.mode! & 0o777, mtime: info.mtime!.getTime(), xattr };
}

/** Runs the attempt on the file `pick` chooses, and returns its metadata before and after. */
async function tryOn(
  args: string[],
  pick: (sandbox: AttackSandbox) => string,
): Promise<{ before: Metadata; after: Metadata; seen: string }> {
  let outcome: { before: Metadata; after: Metadata; seen: string } | undefined;
  // The target is known only once the sandbox exists: the model's script reads it from a file.
  await withAttack([
    { toolCalls: [bash(`sh "$(cat ../attack-path)"`)] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const target = pick(sandbox);
    const script = path.join(sandbox.root, "attack.sh");
    Deno.writeTextFileSync(script, attack(target));
    Deno.writeTextFileSync(path.join(sandbox.root, "attack-path"), script);
    const before = metadata(target);
    const result = await runSkiff(args, sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    outcome = { before, after: metadata(target), seen: lastToolResults(mock)[0]?.content ?? "" };
  });
  return outcome!;
}

const outsideFile = (sandbox: AttackSandbox) => path.join(sandbox.outside, "secret.txt");
const sshKey = (sandbox: AttackSandbox) => path.join(sandbox.home, ".ssh", "id_rsa");
const UNCONTAINED = ["run", "--json", "--yes", "--sandbox", "full-access", "go"];

function assertAllChanged(
  { before, after, seen }: { before: Metadata; after: Metadata; seen: string },
) {
  assertEquals(after.mode, 0o777, `mode unchanged: ${seen}`);
  assert(after.mtime !== before.mtime, `mtime unchanged: ${seen}`);
  if (hasPython) assert(after.xattr, `no xattr: ${seen}`);
}

Deno.test({
  name: "bwrap e2e: chmod, utimes and xattrs outside the workspace fail " +
    "(control: full-access changes them)",
  ...needsBwrap,
}, async () => {
  const contained = await tryOn(
    ["run", "--json", "--yes", "--sandbox-backend", "bwrap", "go"],
    outsideFile,
  );
  assertEquals(contained.after, contained.before, `metadata changed: ${contained.seen}`);
  assert(!/CHMOD|UTIME|XATTR/.test(contained.seen), contained.seen);
  assertAllChanged(await tryOn(UNCONTAINED, outsideFile));
});

Deno.test({
  name: "landlock e2e: chmod, utimes and xattrs of ~/.ssh/id_rsa still work (the documented gap)",
  ignore: !found.landlock,
}, async () => {
  const contained = await tryOn(
    ["run", "--json", "--yes", "--sandbox-backend", "landlock", "go"],
    sshKey,
  );
  // Should this fail, Landlock (or skiff) closed the gap: update docs/security.md and doctor.
  assertAllChanged(contained);
});

/** Copies of /bin/true outside and inside the workspace; the command sets their set-id bits. */
async function setIdBits(args: string[]): Promise<{ outside: number; inside: number }> {
  let modes = { outside: 0, inside: 0 };
  const attack = "chmod 4755 ../outside/true && echo OUT; chmod 2755 ./true && echo IN";
  await withAttack([{ toolCalls: [bash(attack)] }, { text: "done" }], async (sandbox) => {
    const outside = path.join(sandbox.outside, "true");
    const inside = path.join(sandbox.workspace, "true");
    for (const copy of [outside, inside]) {
      Deno.copyFileSync("/bin/true", copy);
      Deno.chmodSync(copy, 0o755);
    }
    await runSkiff(args, sandbox);
    modes = {
      outside: Deno.statSync(outside).mode! & 0o7777,
      inside: Deno.statSync(inside).mode! & 0o7777,
    };
  });
  return modes;
}

Deno.test({
  name: "landlock e2e: a set-user/group-id bit is refused, outside the workspace and in it " +
    "(control: full-access sets both)",
  ignore: !found.landlock,
}, async () => {
  assertEquals(
    await setIdBits(["run", "--json", "--yes", "--sandbox-backend", "landlock", "go"]),
    { outside: 0o755, inside: 0o755 },
  );
  assertEquals(await setIdBits(UNCONTAINED), { outside: 0o4755, inside: 0o2755 });
});
