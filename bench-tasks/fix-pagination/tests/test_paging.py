import unittest

from paging import page, page_count


class PagingTest(unittest.TestCase):
    def test_first_page(self) -> None:
        self.assertEqual(page(list(range(25)), 1), list(range(10)))

    def test_last_page_is_partial(self) -> None:
        self.assertEqual(page(list(range(25)), 3), [20, 21, 22, 23, 24])

    def test_page_count(self) -> None:
        self.assertEqual(page_count(25), 3)
        self.assertEqual(page_count(0), 0)


if __name__ == "__main__":
    unittest.main()
