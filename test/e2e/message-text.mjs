/** The plain text of an OpenClaw message (content as a string or as text parts). */
export function textOf(message) {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .filter((p) => p?.type === "text")
      .map((p) => p.text)
      .join("");
  return undefined;
}
