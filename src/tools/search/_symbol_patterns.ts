/**
 * What a definition looks like, per language, as data: regular expression
 * templates in which `NAME` stands for the escaped name with its word
 * boundaries. The symbol tool finds every line that names the identifier and
 * calls it a definition when a template of the file's language matches the
 * line. Textual, by design: a line is a definition because of how it reads,
 * not because anything was resolved. A file whose extension is not listed
 * has no definitions, only references.
 */

export interface LanguagePatterns {
  language: string;
  /** File name endings, lower case, with the dot. */
  extensions: string[];
  /** Templates; `NAME` is replaced by the escaped name and its boundaries. */
  definitions: string[];
}

const JS_MODIFIERS =
  "(?:(?:export|default|declare|public|private|protected|static|async|override|readonly|abstract|get|set)\\s+)*";

export const LANGUAGES: readonly LanguagePatterns[] = [
  {
    language: "TypeScript/JavaScript",
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
    definitions: [
      `^\\s*${JS_MODIFIERS}function\\s*\\*?\\s*NAME`,
      `^\\s*${JS_MODIFIERS}(?:class|interface|type|enum|namespace|module)\\s+NAME`,
      `^\\s*${JS_MODIFIERS}(?:const|let|var)\\s+NAME`,
      // A method: `name(…) {` or `async name<T>(…): T {` on one line.
      `^\\s*${JS_MODIFIERS}\\*?NAME\\s*(?:<[^>]*>)?\\s*\\([^;]*\\)\\s*(?::\\s*[^=;]+)?\\{\\s*$`,
      // A property or field holding a function: `name: (x) =>`, `name = async function`.
      `^\\s*${JS_MODIFIERS}NAME\\s*[?!]?\\s*[:=]\\s*(?:async\\s+)?(?:function\\b|\\([^)]*\\)\\s*(?::\\s*[^=]+)?=>|[\\w$]+\\s*=>)`,
      // A class field with a modifier: `private readonly name = …`, `static name: T`.
      `^\\s*(?:(?:public|private|protected|static|readonly|declare|override)\\s+)+NAME\\s*[?!]?\\s*[:=;]`,
    ],
  },
  {
    language: "Python",
    extensions: [".py", ".pyi"],
    definitions: [
      "^\\s*(?:async\\s+)?def\\s+NAME",
      "^\\s*class\\s+NAME",
      // A module-level (unindented) assignment or annotated name; `==` is a comparison.
      "^NAME\\s*(?::[^=]*)?=(?!=)",
      "^NAME\\s*:\\s*\\S",
    ],
  },
  {
    language: "Go",
    extensions: [".go"],
    definitions: [
      "^func\\s+(?:\\([^)]*\\)\\s*)?NAME",
      "^\\s*type\\s+NAME",
      "^\\s*(?:var|const)\\s+NAME",
      // Inside a `type (…)`, `var (…)` or `const (…)` block: `\tName Type` / `\tName = …`.
      "^\\tNAME(?:\\s+[\\w.*\\[\\]]+)?\\s*(?:=(?!=)|$)",
      "^\\s*NAME(?:\\s*,\\s*[\\w]+)*\\s*:=",
    ],
  },
  {
    language: "Rust",
    extensions: [".rs"],
    definitions: [
      '^\\s*(?:pub(?:\\([^)]*\\))?\\s+)?(?:(?:default|async|const|unsafe|extern(?:\\s+"[^"]*")?)\\s+)*fn\\s+NAME',
      "^\\s*(?:pub(?:\\([^)]*\\))?\\s+)?(?:struct|enum|trait|type|union|mod|static|const)\\s+(?:mut\\s+)?NAME",
      "^\\s*macro_rules!\\s*NAME",
      "\\blet\\s+(?:mut\\s+)?NAME",
    ],
  },
  {
    language: "Java/Kotlin",
    extensions: [".java", ".kt", ".kts"],
    definitions: [
      "\\b(?:class|interface|enum|record|object)\\s+NAME",
      "\\bfun\\s+(?:<[^>]*>\\s*)?(?:[\\w.]+\\.)?NAME\\s*\\(",
      "\\b(?:val|var)\\s+NAME",
      "\\btypealias\\s+NAME",
      // A Java method or constructor: modifiers, a type, the name, `(`, no `;` after.
      "^\\s*(?!(?:return|new|throw|else|case|await|yield)\\b)(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|strictfp)\\s+)*(?:<[^>]*>\\s+)?(?:[\\w$.]+(?:<[^()]*>)?(?:\\[\\])*\\s+)?NAME\\s*\\([^;]*$",
      // A Java field: `private int name;` or `static final String name = …`.
      "^\\s*(?:(?:public|protected|private|static|final|volatile|transient)\\s+)+[\\w$.]+(?:<[^()]*>)?(?:\\[\\])*\\s+NAME\\s*[=;]",
    ],
  },
  {
    language: "C/C++",
    extensions: [".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ino"],
    definitions: [
      "^\\s*#\\s*define\\s+NAME",
      "^\\s*(?:typedef\\s+)?(?:struct|union|enum(?:\\s+class)?|class|namespace)\\s+NAME\\s*(?:[{:;]|$)",
      "^\\s*typedef\\b.*[\\s*]NAME\\s*;",
      "^\\s*using\\s+NAME\\s*=",
      // A function definition: a return type, then the name (maybe `Class::name`), `(`, no `;`.
      "^(?!\\s*(?:return|else|if|while|for|switch|case|do|sizeof|delete|new|throw)\\b)[A-Za-z_][\\w\\s*&:<>,~]*[\\s*&:]NAME\\s*\\([^;]*$",
      // The return type on the line before: the name at column 0.
      "^NAME\\s*\\([^;]*$",
    ],
  },
  {
    language: "Ruby",
    extensions: [".rb", ".rake", ".gemspec"],
    definitions: [
      "^\\s*def\\s+(?:self\\.)?NAME",
      "^\\s*(?:class|module)\\s+(?:\\w+::)*NAME",
      "^\\s*NAME\\s*=(?![=~])",
      "^\\s*attr_(?:reader|writer|accessor)\\b.*:NAME",
      "\\bdefine_method\\s*\\(?\\s*:NAME",
    ],
  },
  {
    language: "shell",
    extensions: [".sh", ".bash", ".zsh", ".ksh"],
    definitions: [
      "^\\s*(?:function\\s+)?NAME\\s*\\(\\s*\\)",
      "^\\s*function\\s+NAME",
      "^\\s*(?:(?:export|local|readonly|declare(?:\\s+-\\w+)*)\\s+)?NAME=",
    ],
  },
];

/** The language of a file by its name's ending, or undefined. */
export function languageOf(fileName: string): LanguagePatterns | undefined {
  const lower = fileName.toLowerCase();
  const dot = lower.lastIndexOf(".");
  if (dot === -1) return undefined;
  const extension = lower.slice(dot);
  return LANGUAGES.find((language) => language.extensions.includes(extension));
}
