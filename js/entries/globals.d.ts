// What js/entries/node.js uses of Node (the package has no @types/node): the CommonJS bundle's
// module-scope __dirname and node:fs's readFileSync.
declare const __dirname: string;
declare module 'node:fs' {
  export function readFileSync(path: string | URL): Uint8Array;
}
