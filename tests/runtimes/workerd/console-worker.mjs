// A Worker that mounts migrationConsole beside its own routes; /work reads through the migrator,
// anything outside /cutover is the Worker's own. The migrator and the console are made at the
// first request: a Worker's global scope may not draw random numbers (a migrator seeds its
// sampling) nor start timers (the console then samples from its first request on).
import { MigratorBuilder, fixedStage, migrationConsole, sameStructure } from 'cutover';

let orders, cutoverConsole;
function setUp() {
  orders = new MigratorBuilder(fixedStage('shadow'))
    .read((n) => ({ n, price: 10 }), (n) => ({ n, price: n % 2 ? 11 : 10 }), sameStructure())
    .write((x) => x, (x) => x)
    .mismatches()
    .build();
  cutoverConsole = migrationConsole({
    migrators: { orders },
    authorize: (request) => request.headers.get('authorization') === 'Bearer ops',
  });
}

export default {
  async fetch(request) {
    if (cutoverConsole === undefined) setUp();
    const url = new URL(request.url);
    if (url.pathname === '/work') {
      for (let i = 0; i < 10; i++) await orders.read('orders-store', { key: `user-${i}` }, 'off', i);
      return new Response('done');
    }
    if (url.pathname.startsWith('/cutover')) return cutoverConsole(request);
    return new Response('the worker', { status: 200 });
  },
};
