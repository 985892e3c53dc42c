// The console's page, its script and its stylesheet (js/console/page/), as text: scripts/bundle.mjs
// makes this module from the files when it bundles the package.
declare module 'cutover:console-assets' {
  /** page.html, with `{{base}}` where the base path goes. */
  export const page: string;
  /** page.js. */
  export const script: string;
  /** page.css. */
  export const style: string;
}
