import { assertEquals } from "../support/assert.ts";
import { ensureShellParser } from "../../src/permission/shell/shell_parser.ts";
import { alwaysPatterns } from "../../src/permission/always.ts";

// The rule table reads commands with the shell parser: load it once for this file.
await ensureShellParser();

Deno.test("always patterns: prefix of plain words plus ' *', never '*' alone", () => {
  const table: [string, string[]][] = [
    ["git log -n5", ["git log *"]],
    ["npm run build", ["npm run build *"]],
    ["ls", ["ls *"]],
    ["rm -rf x", ["rm *"]],
    ["cat src/a.ts", ["cat *"]],
    ["git status && npm test -- --watch", ["git status *", "npm test *"]],
    ["git commit -m 'x y'", ["git commit *"]],
    ["", []],
    ["* x", []],
  ];
  for (const [command, expected] of table) assertEquals(alwaysPatterns(command), expected, command);
});
