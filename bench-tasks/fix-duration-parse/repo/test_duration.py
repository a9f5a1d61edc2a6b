import unittest

from duration import describe, seconds


class DurationTest(unittest.TestCase):
    def test_one_unit(self) -> None:
        self.assertEqual(seconds("2h"), 7200)
        self.assertEqual(seconds("45s"), 45)

    def test_several_units(self) -> None:
        self.assertEqual(seconds("1h30m"), 5400)

    def test_numbers_of_several_digits(self) -> None:
        self.assertEqual(seconds("90s"), 90)
        self.assertEqual(seconds("1h15m"), 4500)

    def test_not_a_duration(self) -> None:
        with self.assertRaises(ValueError):
            seconds("soon")

    def test_describe(self) -> None:
        self.assertEqual(describe(5400), "1h30m")
        self.assertEqual(describe(0), "0s")


if __name__ == "__main__":
    unittest.main()
