// One scenario run in a fresh process: node --expose-gc bench/lib/child.mjs <scenario> <side>
// Prints one line `@@RESULT <json>` with { value, note?, info? } and exits.
const [scenario, side] = process.argv.slice(2);
const mod = await import(new URL(`../scenarios/${scenario}.mjs`, import.meta.url));
if (typeof mod[side] !== 'function') {
  console.error(`scenario ${scenario} has no ${side} side`);
  process.exit(2);
}
const result = await mod[side]();
process.stdout.write(`\n@@RESULT ${JSON.stringify(result)}\n`, () => process.exit(0));
