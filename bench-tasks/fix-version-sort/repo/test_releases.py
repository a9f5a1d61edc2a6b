import unittest

from releases import is_release, latest, parse


class ReleasesTest(unittest.TestCase):
    def test_parse(self) -> None:
        self.assertEqual(parse("v1.10.2"), (1, 10, 2))

    def test_latest_compares_numbers(self) -> None:
        self.assertEqual(latest(["v1.9.0", "v1.10.0", "v1.2.3"]), "v1.10.0")

    def test_is_release(self) -> None:
        self.assertTrue(is_release("v2.0.1"))
        self.assertFalse(is_release("v2.0.1-rc1"))
        self.assertFalse(is_release("nightly"))


if __name__ == "__main__":
    unittest.main()
