import { assertEquals } from "../support/assert.ts";
import { ensureShellParser } from "../../src/permission/shell/shell_parser.ts";
import { alwaysPatterns, isDestructive } from "../../src/permission/always.ts";
import { shellWords } from "../../src/permission/shell/bash_split.ts";

// The rule table reads commands with the shell parser: load it once for this file.
await ensureShellParser();

Deno.test("always patterns: prefix of plain words plus ' *', never '*' alone", () => {
  const table: [string, string[]][] = [
    ["git log -n5", ["git log *"]],
    ["npm run build", ["npm run build *"]],
    ["ls", ["ls *"]],
    ["seq 1 500", ["seq *"]],
    ["head -n 5 a.txt", ["head *"]],
    ["npm install lodash", ["npm install lodash *"]],
    ["cat src/a.ts", ["cat *"]],
    ["git status && npm test -- --watch", ["git status *", "npm test *"]],
    ["git commit -m 'x y'", ["git commit *"]],
    ["", []],
    ["* x", []],
  ];
  for (const [command, expected] of table) assertEquals(alwaysPatterns(command), expected, command);
});

Deno.test("always patterns: none for a destructive command, whatever its flags", () => {
  const destructive = [
    "rm -rf src",
    "rm a.txt",
    "/bin/rm x",
    "rmdir build",
    "dd if=/dev/zero of=disk.img",
    "mkfs.ext4 /dev/sdb1",
    "shred secrets.txt",
    "find . -name '*.tmp' -delete",
    "xargs rm -f",
    "git clean -fdx",
    "git reset --hard HEAD~1",
    "git push --force origin main",
    "git push -f",
    "git branch -D feature",
    "git checkout -- .",
    "git restore src/a.ts",
    "git stash drop",
  ];
  for (const command of destructive) {
    assertEquals(isDestructive(shellWords(command)), true, command);
    assertEquals(alwaysPatterns(command), [], command);
  }
  // The same programs used in ways that keep everything still get their rule.
  const kept: [string, string[]][] = [
    ["git reset HEAD a.ts", ["git reset HEAD *"]],
    ["git push origin main", ["git push origin *"]],
    ["git branch -a", ["git branch *"]],
    ["git checkout main", ["git checkout main *"]],
    ["find . -name '*.ts'", ["find *"]],
    ["git status && rm -rf build", ["git status *"]],
  ];
  for (const [command, expected] of kept) assertEquals(alwaysPatterns(command), expected, command);
});
