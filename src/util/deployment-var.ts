/** A positive number from a deployment's text var (wrangler `[vars]`), else `fallback`. */
export function positiveVar(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}
