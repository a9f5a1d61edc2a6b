import logging
import sys

from worker import run

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    sys.exit(1 if run(sys.argv[1:]) else 0)
