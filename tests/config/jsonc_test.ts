import { assertEquals, assertThrows } from "../support/assert.ts";
import { JsoncSyntaxError, parseJsonc, updateJsonc } from "../../src/config/jsonc.ts";
import { readJsoncFile } from "../../src/config/load.ts";

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

Deno.test("jsonc: a config file with trailing commas and comments still reads", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-jsonc-" });
  try {
    const file = `${dir}/skiff.json`;
    await Deno.writeTextFile(
      file,
      '{\n  "maxTurns": 3, // enough\n  "sandbox": { "addDirs": ["/tmp",], },\n}\n',
    );
    assertEquals(await readJsoncFile(file), { maxTurns: 3, sandbox: { addDirs: ["/tmp"] } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("jsonc edit: only the changed places change; comments, order and layout stay", () => {
  const before = `{
  // the model, chosen for price
  "model": "m1", /* not the big one */
  "trustedProjects": [
    "/srv/known", // the work repository
  ],
  "permission": { "bash": "ask" },
  /* limits */
  "maxTurns": 9 // enough
}
`;
  const after = updateJsonc(before, {
    model: "m2",
    trustedProjects: ["/srv/known", "/srv/new"],
    permission: { bash: { "*": "ask", "git log *": "allow" } },
    maxTurns: 9,
    agent: "plan",
  });
  assertEquals(
    after,
    `{
  // the model, chosen for price
  "model": "m2", /* not the big one */
  "trustedProjects": [
    "/srv/known", // the work repository
    "/srv/new",
  ],
  "permission": { "bash": { "*": "ask", "git log *": "allow" } },
  /* limits */
  "maxTurns": 9, // enough
  "agent": "plan"
}
`,
  );
});

Deno.test("jsonc edit: a moved key goes last, a removed key goes, tabs and CRLF stay", () => {
  const before =
    '{\r\n\t"bash": {\r\n\t\t"git *": "ask",\r\n\t\t"ls *": "allow"\r\n\t},\r\n\t"old": 1\r\n}\r\n';
  const after = updateJsonc(before, { bash: { "ls *": "allow", "git *": "allow" } });
  assertEquals(
    after,
    '{\r\n\t"bash": {\r\n\t\t"ls *": "allow",\r\n\t\t"git *": "allow"\r\n\t}\r\n}\r\n',
  );
  assertEquals(Object.keys((parseJsonc(after) as { bash: object }).bash), ["ls *", "git *"]);
});

Deno.test("jsonc edit: an empty file becomes plain JSON; a broken one throws", () => {
  assertEquals(updateJsonc("", { a: [1] }), '{\n  "a": [\n    1\n  ]\n}\n');
  assertThrows(() => updateJsonc("{ nope", { a: 1 }), JsoncSyntaxError);
});

Deno.test("jsonc edit: a moved rule takes its own line along; comments on other lines stay", () => {
  const before = `{
  "bash": {
    // rules for git
    "git *": "ask", // for now
    "ls *": "allow",
  },
  "only": { "x": 1, },
}
`;
  assertEquals(
    updateJsonc(before, { bash: { "ls *": "allow", "git *": "allow" }, only: {} }),
    `{
  "bash": {
    // rules for git
    "ls *": "allow",
    "git *": "allow",
  },
  "only": {  },
}
`,
  );
});

Deno.test("jsonc: each kind of mistake is named where the text first goes wrong", () => {
  const cases: [string, string][] = [
    [
      '{"a": 1',
      `line 1, column 8: expected ',' or '}' after the value of "a" but found the end of the file`,
    ],
    ['{"a": [1, 2.]}', "line 1, column 12: expected ',' or ']' in a list but found '.'"],
    [
      '{"a": falsey}',
      `line 1, column 12: expected ',' or '}' after the value of "a" but found 'y'`,
    ],
    ['{"a" 1}', `line 1, column 6: expected ':' after "a" but found '1'`],
    ['{"a": -}', "line 1, column 7: expected a number but found '-'"],
    ["{,}", "line 1, column 2: expected a property name in double quotes but found ','"],
    ['{"a": 1e999}', "line 1, column 7: the number 1e999 is too large"],
    ["{\"a\": 'b'}", "line 1, column 7: strings must use double quotes"],
    ['{"a": 1}}', "line 1, column 9: unexpected '}' after the end of the value"],
  ];
  for (const [text, message] of cases) assertEquals(syntaxError(text).message, message, text);
});
