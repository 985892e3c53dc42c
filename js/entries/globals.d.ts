// The CommonJS bundle's module-scope variable that node.js reads (esbuild keeps it as is).
declare const __dirname: string;
