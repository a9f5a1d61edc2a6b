"""Settings of the downloader."""

TIMEOUT_SECONDS = 30
MAX_RETRIES = 5
USER_AGENT = "fetcher/1.0"
