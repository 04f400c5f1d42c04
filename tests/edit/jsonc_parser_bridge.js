// Microsoft's jsonc-parser (npm) answering JSON lines: one case per line in, one result out.
// Case: {op: "set"|"remove"|"parse", text, path, value, ours}. Result: the value jsonc-parser
// reads after applying its own edit (modify + applyEdits), its error count, and how it reads
// our edited text (`ours`), so the test can compare both editors on the same document.
const path = require("path");
const jp = require(path.join(process.argv[2], "node_modules", "jsonc-parser"));
const readline = require("readline");
const OPTIONS = { allowTrailingComma: true, disallowComments: false };

function read(text) {
  const errors = [];
  const value = jp.parse(text, errors, OPTIONS);
  return { value: value === undefined ? null : value, errors: errors.length };
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const c = JSON.parse(line);
  let out;
  try {
    let text = c.text;
    if (c.op !== "parse") {
      const value = c.op === "set" ? c.value : undefined;
      const fmt = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };
      text = jp.applyEdits(text, jp.modify(text, c.path, value, fmt));
    }
    out = read(text);
    if (typeof c.ours === "string") out.ours = read(c.ours);
  } catch (err) {
    out = { crash: String(err) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
