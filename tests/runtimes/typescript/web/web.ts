// cutover/web: explicit init for bundlers and hosts without top-level await (resolves dist/web.d.mts).
import init, { initSync, MigratorBuilder, fixedStage } from 'cutover/web';
import * as web from 'cutover/web';
import { expectType, type Equals } from '../pass/util.js';

export async function start(bytes: Uint8Array, module: WebAssembly.Module): Promise<void> {
  await init();
  await init({ module_or_path: new URL('https://example.test/cutover_bg.wasm') });
  await web.default();
  initSync({ module: bytes });
  initSync({ module });
  const m = new MigratorBuilder<void, string>(fixedStage('off')).read(() => 'a', () => 'b').write(() => 1, () => 2).build();
  const r = await m.read('f', { key: 'k' }, 'off');
  expectType<Equals<typeof r.value, string | undefined>>();
}
