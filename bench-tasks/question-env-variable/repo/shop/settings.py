"""Settings from the environment, with their defaults."""

import os

API_URL = os.environ.get("SHOP_API", "https://api.shop.example.com")
RETRIES = int(os.environ.get("SHOP_RETRIES", "4"))
WAIT = float(os.environ.get("SHOP_WAIT_SECONDS", "2.5"))
PAGE_SIZE = int(os.environ.get("SHOP_PAGE_SIZE", "50"))
