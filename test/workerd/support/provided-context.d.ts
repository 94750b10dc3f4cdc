// Values the global setup (test/peers/global-setup.ts) provides to every test file.
declare module "vitest" {
  export interface ProvidedContext {
    peerPort: number;
    toolModelPort: number;
  }
}

export {};
