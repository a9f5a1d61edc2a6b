"""Settings of the downloader."""

TIMEOUT_SECONDS = 30
MAX_RETRIES = 3
USER_AGENT = "fetcher/1.0"
