// `npm run demo`: cutover migrating a simulated key-value service, stage by stage.
// Each section is a file exporting `run…Section({ out, style })`; they run in order.

import { colorEnabled, styler } from './term.mjs';

const out = process.stdout;
const style = styler(colorEnabled(out));

try {
  await import('cutover');
} catch (err) {
  process.stderr.write(`cutover is not built (${err.message}).\nRun \`npm run build\` first, or use \`npm run demo\`.\n`);
  process.exit(1);
}

const sections = [
  ['./migration.mjs', 'runMigrationSection'],
  ['./background.mjs', 'runBackgroundSection'],
  ['./guardrails.mjs', 'runGuardrailsSection'],
  ['./differences.mjs', 'runDifferencesSection'],
  ['./big-segments.mjs', 'runBigSegmentsSection'],
  ['./opentelemetry.mjs', 'runOpenTelemetrySection'],
];
// Every section records into one OpenTelemetry meter; the last one shows what it received.
const metrics = (await import('./opentelemetry.mjs')).createMetrics();
const results = {};

const started = performance.now();
out.write(`\n${style.bold('cutover')} ${style.dim('· flag-driven technology migrations, Rust core in WebAssembly')}\n\n`);
for (const [file, name] of sections) {
  const section = await import(file);
  Object.assign(results, await section[name]({ out, style, meter: metrics.meter, metrics, results }));
  out.write('\n');
}
out.write(style.dim(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`) + '\n');
