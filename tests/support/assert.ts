/**
 * The few assertions the tests use, on top of node:assert (the standard
 * library's assert module lives on JSR, which our machines cannot reach).
 */
import nodeAssert from "node:assert/strict";

export function assert(condition: unknown, message?: string): asserts condition {
  nodeAssert.ok(condition, message);
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

export function assertNotEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, message);
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  nodeAssert.match(actual, pattern, message);
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new nodeAssert.AssertionError({
      message: message ?? `expected to find ${JSON.stringify(expected)} in:\n${actual}`,
      actual,
      expected,
    });
  }
}

export function assertThrows(
  work: () => unknown,
  // deno-lint-ignore no-explicit-any
  errorClass?: new (...args: any[]) => Error,
  includes?: string,
): Error {
  try {
    work();
  } catch (error) {
    checkError(error, errorClass, includes);
    return error as Error;
  }
  throw new nodeAssert.AssertionError({ message: "expected the function to throw" });
}

export async function assertRejects(
  work: () => Promise<unknown>,
  // deno-lint-ignore no-explicit-any
  errorClass?: new (...args: any[]) => Error,
  includes?: string,
): Promise<Error> {
  try {
    await work();
  } catch (error) {
    checkError(error, errorClass, includes);
    return error as Error;
  }
  throw new nodeAssert.AssertionError({ message: "expected the promise to reject" });
}

// deno-lint-ignore no-explicit-any
function checkError(error: unknown, errorClass?: new (...args: any[]) => Error, includes?: string) {
  if (errorClass && !(error instanceof errorClass)) {
    throw new nodeAssert.AssertionError({
      message: `expected ${errorClass.name}, got ${
        error instanceof Error ? error.name : typeof error
      }: ${error}`,
    });
  }
  if (includes && !(error instanceof Error && error.message.includes(includes))) {
    throw new nodeAssert.AssertionError({
      message: `expected the error message to include ${JSON.stringify(includes)}, got: ${
        error instanceof Error ? error.message : error
      }`,
    });
  }
}
