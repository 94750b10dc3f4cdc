/**
 * Markdown line by line, as both chat formats render it: a closed fenced block (```lang …
 * ```) goes to `fence` whole, every other line to `line`; an unclosed fence is a plain line.
 */
export function renderMarkdownLines(
  markdown: string,
  render: { fence(lang: string, body: string[]): string; line(line: string): string },
): string {
  const out: string[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) {
      let end = i + 1;
      while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
      if (end < lines.length) {
        out.push(render.fence(fence[1]!, lines.slice(i + 1, end)));
        i = end;
        continue;
      }
    }
    out.push(render.line(line));
  }
  return out.join("\n");
}
