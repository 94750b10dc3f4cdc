const MIB = 1024 * 1024;

/** `20 MB`, `1.5 MB`, `4 KB`: a size as a person reads it (a chat's warning, the model's note on a file). */
export function sizeText(bytes: number): string {
  if (bytes < MIB) return `${Math.ceil(bytes / 1024)} KB`;
  const mb = bytes / MIB;
  return `${mb >= 10 ? mb.toFixed(0) : mb.toFixed(1)} MB`;
}
