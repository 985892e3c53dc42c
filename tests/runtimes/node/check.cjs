// Node packaging fixture (CommonJS), run inside a throwaway project that installed the tarball.
'use strict';

(async () => {
  const { smoke } = await import(process.env.CUTOVER_SMOKE_URL);
  const required = require('cutover');
  const imported = await import('cutover');
  const report = {
    requireExports: Object.keys(required).sort(),
    importExports: Object.keys(imported).filter((k) => k !== 'default').sort(),
    importHasDefault: 'default' in imported,
    requireResolved: require.resolve('cutover'),
    sameClass: required.MigratorBuilder === imported.MigratorBuilder,
    version: require('cutover/package.json').version,
    cjs: await smoke(required),
  };
  console.log('CUTOVER_REPORT ' + JSON.stringify(report));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
