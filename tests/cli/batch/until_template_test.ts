/**
 * A `--until` template's placeholders are filled quoted for the shell, and a
 * placeholder inside the template's own quotes is refused (it would be
 * quoted twice, and inside "…" a name's `$(…)` would run).
 */
import { assertEquals, assertThrows } from "../../support/assert.ts";
import { checkCommandTemplate, fillCommand, tasksForFiles } from "../../../src/cli/batch/tasks.ts";
import { UsageError } from "../../../src/cli/exit_codes.ts";

Deno.test("until template: placeholders outside quotes pass, inside quotes are refused", () => {
  for (
    const ok of ["test -s {file}", `echo \\'{file}`, "grep 'x' {file} && echo \"{\"", "a {dir}/b"]
  ) {
    checkCommandTemplate(ok);
  }
  for (const bad of ["test -s '{file}'", 'grep x "src/{name}"', `echo "\\"{dir}"`]) {
    assertThrows(() => checkCommandTemplate(bad), UsageError, "outside quotes");
  }
});

Deno.test("until template: each task's values are filled, a hostile name as one quoted word", () => {
  const values = { file: "src/$(rm -rf ~).txt", dir: "src", name: "$(rm -rf ~).txt" };
  assertEquals(
    fillCommand("test -s {file} && ls {dir}", values),
    "test -s 'src/$(rm -rf ~).txt' && ls src",
  );
  const tasks = tasksForFiles("/w", ["src/a.txt", "lib/b c.txt"], "mark {file}", "wc -l {name}");
  assertEquals(tasks.map((task) => task.until), ["wc -l a.txt", "wc -l 'b c.txt'"]);
});
