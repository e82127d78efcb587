import { assertEquals, assertThrows } from "../support/assert.ts";
import { JsoncSyntaxError, parseJsonc } from "../../src/config/jsonc.ts";

Deno.test("jsonc: comments and trailing commas are accepted, strings untouched", () => {
  const text = `{
  // the endpoint
  "provider": {
    "baseURL": "http://localhost:8080/v1", /* a local server */
    "note": "a // inside a string and /* this */ too",
  },
  "list": [1, 2.5e1, -3, true, false, null,],
}`;
  assertEquals(parseJsonc(text), {
    provider: {
      baseURL: "http://localhost:8080/v1",
      note: "a // inside a string and /* this */ too",
    },
    list: [1, 25, -3, true, false, null],
  });
});

Deno.test("jsonc: escapes, a BOM and a __proto__ key read as plain data", () => {
  const value = parseJsonc(
    '\ufeff{"a": "tab\\t\\u00e9\\"", "__proto__": {"polluted": true}}',
  ) as Record<
    string,
    unknown
  >;
  assertEquals(value.a, 'tab\té"');
  assertEquals(Object.keys(value), ["a", "__proto__"]);
  assertEquals(({} as Record<string, unknown>).polluted, undefined);
});

function syntaxError(text: string): JsoncSyntaxError {
  return assertThrows(() => parseJsonc(text), JsoncSyntaxError) as JsoncSyntaxError;
}

Deno.test("jsonc: a syntax error reports line and column", () => {
  const missingComma = syntaxError('{\n  "a": 1\n  "b": 2\n}');
  assertEquals([missingComma.line, missingComma.column], [3, 3]);
  assertEquals(missingComma.reason, `expected ',' or '}' after the value of "a" but found '"'`);

  const unterminated = syntaxError('{\n  "model": "gpt,\n}');
  assertEquals([unterminated.line, unterminated.column], [2, 12]);

  const singleQuotes = syntaxError("{\n\t'a': 1}");
  assertEquals([singleQuotes.line, singleQuotes.column], [2, 2]);

  const comment = syntaxError('{"a": 1 /* never closed');
  assertEquals(comment.reason, "unterminated block comment (missing '*/')");

  const trailing = syntaxError('{"a": 1} x');
  assertEquals([trailing.line, trailing.column], [1, 10]);

  const empty = syntaxError("// only a comment\n");
  assertEquals(empty.reason, "the file has no value (expected an object)");
});
