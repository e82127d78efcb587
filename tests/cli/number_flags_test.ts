import { assertEquals, assertThrows } from "../support/assert.ts";
import { numberFlag } from "../../src/cli/number_flags.ts";
import { UsageError } from "../../src/cli/exit_codes.ts";

Deno.test("numberFlag: an absent flag is undefined, a whole count above 0 is its number", () => {
  assertEquals(numberFlag("--max-turns", undefined), undefined);
  assertEquals(numberFlag("--max-turns", "20"), 20);
  assertEquals(numberFlag("--max-cost", "0.50", "dollars"), 0.5);
});

Deno.test("numberFlag: a value the flag does not take names the flag and what to pass", () => {
  for (const text of ["0", "-3", "2.5", "many", ""]) {
    assertThrows(
      () => numberFlag("-j", text),
      UsageError,
      `-j must be a positive whole number, got "${text}".`,
    );
  }
  for (const text of ["0", "-1", "1e2", "$3", "abc"]) {
    assertThrows(
      () => numberFlag("--max-cost", text, "dollars"),
      UsageError,
      `--max-cost takes US dollars above 0, such as 0.50; got "${text}".`,
    );
  }
});
