// JSON-like values for the differences scenarios (mismatch-explain): an order of about 1 KB of
// JSON, the kind of record a shadow read compares.

/** About 1 KB of JSON (`JSON.stringify(order()).length` is 1,0xx): strings, numbers, booleans, null, nesting 3 deep. */
export function order(seed = 0) {
  const items = [];
  for (let i = 0; i < 4; i++) {
    items.push({
      sku: `SKU-${1000 + i}`,
      name: `Widget number ${i}`,
      qty: i + 1,
      price: 9.99 + i,
      tags: ['blue', 'large', `t${i}`],
      discount: i % 2 ? null : 0.1,
      etag: `"e${i}-${seed}"`,
    });
  }
  return {
    id: 'ord_8f14e45fceea167a5a36dedd4bea2543',
    status: 'shipped',
    createdAt: '2024-05-01T12:34:56.000Z',
    updatedAt: `2024-05-02T08:00:${String(seed % 60).padStart(2, '0')}.000Z`,
    customer: {
      id: 'cus_42',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      vip: true,
      address: { street: '12 Analytical Row', city: 'London', zip: 'N1 9GU', country: 'GB' },
    },
    items,
    totals: { subtotal: 49.96, tax: 9.99, shipping: 4.5, total: 64.45, currency: 'GBP' },
    flags: [true, false, true],
    notes: 'Leave at the door, please. Ring twice.',
  };
}

/** Two equal values that share nothing, as two origins' parsed responses would be. */
export function equalPair(seed = 0) {
  const text = JSON.stringify(order(seed));
  return [JSON.parse(text), JSON.parse(text)];
}

/** `value` with every object's keys in reverse order: equal by structure, not by JSON text. */
export function reordered(value) {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
}

/** An order and a copy that differs at 3 paths (/updatedAt, /items/1/price, /totals/total). */
export function differentPair(seed = 0) {
  const [old, copy] = equalPair(seed);
  copy.updatedAt = '2024-05-03T09:30:00.000Z';
  copy.items[1].price = 11.49;
  copy.totals.total = 65.95;
  return [old, copy];
}
