const test = require("node:test");
const assert = require("node:assert");
const { total, formatCents } = require("./cart.js");

test("quantities multiply the price", () => {
  const items = [
    { name: "tea", price: 250, quantity: 2 },
    { name: "cake", price: 100, quantity: 1 },
  ];
  assert.strictEqual(total(items), 600);
});

test("a missing quantity means one", () => {
  assert.strictEqual(total([{ name: "pen", price: 120 }]), 120);
});

test("cents are shown as a decimal amount", () => {
  assert.strictEqual(formatCents(1234), "12.34");
});
