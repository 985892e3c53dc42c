export function makeValue(seed = 1) {
  const items = [];
  for (let i = 0; i < 4; i++) {
    items.push({ sku: `SKU-${1000 + i * seed}`, name: `Widget number ${i}`, qty: i + 1, price: 9.99 + i, tags: ['blue', 'large', `t${i}`], discount: i % 2 ? null : 0.1 });
  }
  return {
    id: 'ord_8f14e45fceea167a5a36dedd4bea2543',
    status: 'shipped',
    createdAt: '2024-05-01T12:34:56.000Z',
    updatedAt: '2024-05-02T08:00:00.000Z',
    customer: { id: 'cus_42', name: 'Ada Lovelace', email: 'ada@example.com', vip: true,
      address: { street: '12 Analytical Row', city: 'London', zip: 'N1 9GU', country: 'GB' } },
    items,
    totals: { subtotal: 49.96, tax: 9.99, shipping: 4.5, total: 64.45, currency: 'GBP' },
    flags: [true, false, true],
    notes: 'Leave at the door, please. Ring twice.',
  };
}
