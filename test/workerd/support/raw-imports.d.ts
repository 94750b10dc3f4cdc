// Vite's `?raw` imports (test fixtures loaded as text).
declare module "*?raw" {
  const text: string;
  export default text;
}
