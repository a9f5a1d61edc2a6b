// Totals of a shopping cart. Prices are in cents.
// An item is {name, price, quantity}; a missing quantity means 1.

function total(items) {
  let sum = 0;
  for (const item of items) {
    sum += item.price * (item.quantity ?? 1);
  }
  return sum;
}

function formatCents(cents) {
  return (cents / 100).toFixed(2);
}

module.exports = { total, formatCents };
