import unittest

from clamp import clamp


class ClampTest(unittest.TestCase):
    def test_range(self) -> None:
        self.assertEqual(clamp(-1, 0, 10), 0)
        self.assertEqual(clamp(5, 0, 10), 5)
        self.assertEqual(clamp(11, 0, 10), 10)

    def test_wrong_way_round(self) -> None:
        with self.assertRaises(ValueError):
            clamp(1, 10, 0)
